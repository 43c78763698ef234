'use strict';
// Shows a question's context as what it is: JSON as a collapsible tree, anything else as a small, safe subset of
// Markdown (headings, bold, italic, code, lists, quotes, links). Agents write the context, so it is untrusted:
// nothing here parses HTML. Every piece of text becomes a text node, and a link becomes one only for an http(s)
// address, opened with rel="noopener noreferrer".

/** The context as DOM nodes, in a wrapper element. */
function renderContext(text) {
  const json = parseJson(text);
  return json === undefined ? markdownBlock(text) : jsonBlock(json);
}

function parseJson(text) {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

function node(tag, className, ...children) {
  const created = document.createElement(tag);
  if (className) created.className = className;
  created.append(...children);
  return created;
}

/** An http(s) address as a link, or null for anything else (javascript:, data:, relative paths). */
function safeLink(href, ...children) {
  let url;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const link = node('a', '', ...(children.length ? children : [href]));
  link.href = url.href;
  link.rel = 'noopener noreferrer';
  link.target = '_blank';
  return link;
}

// JSON

function jsonBlock(value) {
  const tree = node('details', 'json');
  tree.open = true;
  tree.append(node('summary', '', `JSON ${shape(value)}`), jsonValue(value, 1));
  return node('div', 'context', tree);
}

function shape(value) {
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  const keys = Object.keys(value).length;
  return `{${keys} key${keys === 1 ? '' : 's'}}`;
}

function jsonValue(value, depth) {
  if (value === null || typeof value !== 'object') return jsonScalar(value);
  const list = node('ul', 'json-members');
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  for (const [key, item] of entries) {
    const label = node('span', 'json-key', Array.isArray(value) ? `${key}` : JSON.stringify(key));
    if (item !== null && typeof item === 'object') {
      const nested = node('details', '', node('summary', '', label, `: ${shape(item)}`), jsonValue(item, depth + 1));
      // Deep or long structures start folded, so the outline stays readable.
      nested.open = depth < 3 && entries.length <= 50;
      list.append(node('li', '', nested));
    } else {
      list.append(node('li', '', label, ': ', jsonScalar(item)));
    }
  }
  return list;
}

function jsonScalar(value) {
  if (typeof value === 'string') {
    return node('span', 'json-string', safeLink(value, JSON.stringify(value)) || JSON.stringify(value));
  }
  return node('span', `json-${value === null ? 'null' : typeof value}`, String(value));
}

// Markdown

const BLOCK = {
  fence: /^\s*(```|~~~)/,
  heading: /^(#{1,6})\s+(.*?)\s*#*\s*$/,
  bullet: /^\s*[-*+]\s+(.*)$/,
  numbered: /^\s*\d{1,9}[.)]\s+(.*)$/,
  quote: /^\s*>\s?(.*)$/,
  rule: /^\s*([-*_])(\s*\1){2,}\s*$/,
};

function markdownBlock(text) {
  const out = node('div', 'context markdown');
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) out.append(node('p', '', ...lineBroken(paragraph)));
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(BLOCK.fence);
    if (fence) {
      flush();
      const code = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) code.push(lines[i]);
      out.append(node('pre', '', node('code', '', code.join('\n'))));
      continue;
    }
    const list = line.match(BLOCK.bullet) ? 'ul' : line.match(BLOCK.numbered) ? 'ol' : null;
    if (list && !BLOCK.rule.test(line)) {
      flush();
      const pattern = list === 'ul' ? BLOCK.bullet : BLOCK.numbered;
      const items = node(list, '');
      for (; i < lines.length && pattern.test(lines[i]); i++) items.append(node('li', '', ...inline(lines[i].match(pattern)[1])));
      i--;
      out.append(items);
      continue;
    }
    if (BLOCK.quote.test(line)) {
      flush();
      const quoted = [];
      for (; i < lines.length && BLOCK.quote.test(lines[i]); i++) quoted.push(lines[i].match(BLOCK.quote)[1]);
      i--;
      out.append(node('blockquote', '', ...lineBroken(quoted)));
      continue;
    }
    const heading = line.match(BLOCK.heading);
    if (heading) {
      flush();
      // The page's own headings are h1-h3: the context's nest below them.
      out.append(node(`h${Math.min(6, heading[1].length + 3)}`, 'md-heading', ...inline(heading[2])));
    } else if (BLOCK.rule.test(line)) {
      flush();
      out.append(node('hr', ''));
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return out;
}

/** Lines of one paragraph, kept on their own lines: agents' context is often plain text laid out by line. */
function lineBroken(lines) {
  const nodes = [];
  lines.forEach((line, index) => {
    if (index) nodes.push(document.createElement('br'));
    nodes.push(...inline(line));
  });
  return nodes;
}

const INLINE = /`([^`]+)`|\[([^\]]+)\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)\)|(https?:\/\/[^\s<>"]*[^\s<>".,;:!?')\]])|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s](?:[^*]*[^*\s])?)\*|(?<![\p{L}\p{N}])_([^_\s](?:[^_]*[^_\s])?)_(?![\p{L}\p{N}])/u;

/** Inline Markdown as nodes; anything that is not markup stays text. */
function inline(text) {
  const nodes = [];
  let rest = text;
  for (let match = INLINE.exec(rest); match; match = INLINE.exec(rest)) {
    if (match.index) nodes.push(rest.slice(0, match.index));
    const [whole, code, label, href, bare, strong, strongAlt, em, emAlt] = match;
    if (code !== undefined) nodes.push(node('code', '', code));
    else if (label !== undefined) nodes.push(safeLink(href, ...inline(label)) || whole);
    else if (bare !== undefined) nodes.push(safeLink(bare) || bare);
    else if (strong !== undefined || strongAlt !== undefined) nodes.push(node('strong', '', ...inline(strong ?? strongAlt)));
    else nodes.push(node('em', '', ...inline(em ?? emAlt)));
    rest = rest.slice(match.index + whole.length);
  }
  if (rest) nodes.push(rest);
  return nodes;
}
