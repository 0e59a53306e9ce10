/** Converts degrees Celsius to degrees Fahrenheit. */
export function toFahrenheit(celsius) {
  return (celsius * 9) / 5 + 32;
}

/** Converts degrees Fahrenheit to degrees Celsius. */
export function toCelsius(fahrenheit) {
  return ((fahrenheit - 32) * 5) / 9;
}

/** "21.5 °C": one decimal, the unit after a space. */
export function format(value, unit) {
  return `${value.toFixed(1)} °${unit}`;
}
