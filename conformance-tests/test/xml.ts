/** Reading XML reports back in tests, with a strict (XML 1.0 well-formedness) parser. */
import assert from 'node:assert/strict';
import { SaxesParser } from 'saxes';

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** A whole document as a tree; saxes throws on anything that is not well-formed XML 1.0. */
export function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser();
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag) => {
    const el: XmlElement = { name: tag.name, attributes: tag.attributes, children: [], text: '' };
    stack.at(-1)?.children.push(el);
    stack.push(el);
    root ??= el;
  });
  parser.on('text', (text) => {
    const top = stack.at(-1);
    if (top) top.text += text;
  });
  parser.on('closetag', () => void stack.pop());
  parser.write(xml).close();
  assert.ok(root, 'no root element');
  return root;
}

export const all = (el: XmlElement, name: string): XmlElement[] => [
  ...el.children.filter((c) => c.name === name),
  ...el.children.flatMap((c) => all(c, name)),
];
