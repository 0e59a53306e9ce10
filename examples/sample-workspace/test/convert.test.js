import assert from 'node:assert/strict';
import { test } from 'node:test';
import { format, toCelsius, toFahrenheit } from '../src/convert.js';

test('water freezes at 0 °C, 32 °F', () => {
  assert.equal(toFahrenheit(0), 32);
  assert.equal(toCelsius(32), 0);
});

test('formats one decimal', () => {
  assert.equal(format(21.456, 'C'), '21.5 °C');
});
