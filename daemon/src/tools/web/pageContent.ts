/**
 * What web_fetch hands the model from a body: HTML as readable Markdown (the
 * article Readability extracts, converted by Turndown; the whole body when
 * Readability finds no article), text and JSON as they are, anything else
 * refused — the model cannot use a PDF or an image's bytes.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export type PageContent =
  { kind: 'markdown' | 'text'; text: string } | { kind: 'refused'; reason: string };

function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function charsetOf(contentType: string): string {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? 'utf-8';
}

function decode(body: Buffer, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // an unknown charset label
  }
}

function isJson(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

export function htmlToMarkdown(html: string): string {
  const { document } = parseHTML(html);
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  turndown.remove(['script', 'style', 'noscript']);
  // Readability changes the document it reads: give it its own.
  const article = new Readability(parseHTML(html).document, { keepClasses: false }).parse();
  const title = article?.title ?? document.title;
  const markdown = turndown.turndown(article?.content ?? document.body?.innerHTML ?? html).trim();
  return title ? `# ${title}\n\n${markdown}` : markdown;
}

export function pageContent(body: Buffer, contentType: string): PageContent {
  const type = mediaType(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml')
    return { kind: 'markdown', text: htmlToMarkdown(decode(body, contentType)) };
  if (type.startsWith('text/') || isJson(type))
    return { kind: 'text', text: decode(body, contentType) };
  return {
    kind: 'refused',
    reason: `refused: the content type is ${type || 'not given'}; web_fetch returns only HTML (as Markdown), text and JSON`,
  };
}
