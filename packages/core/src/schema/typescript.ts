import type { SchemaNode } from './schema-node.js'
import { parseSchema } from './subset.js'

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const INDENT = '  '

/** A key as written in a type literal: bare when it is an identifier, JSON-quoted otherwise (S5.3). */
function renderKey(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key)
}

/** A one-line JSDoc comment: whitespace runs collapsed, `*\/` escaped (S5.4). */
function docComment(description: string): string {
  const text = description.replace(/\s+/g, ' ').trim().replaceAll('*/', '*\\/')
  return `/** ${text} */`
}

/**
 * A property's doc text: its description, then the constraints TypeScript cannot express and
 * its documented default as `key: value` pairs in parentheses (S5.7, S6.8); `undefined` when
 * there is none of them.
 */
function docText(node: SchemaNode): string | undefined {
  if (node.kind === 'invalid') return undefined
  const valued = node.kind === 'scalar' || node.kind === 'array' ? node : undefined
  const pairs = Object.entries(valued?.constraints ?? {}).map(([key, value]) => `${key}: ${literal(value)}`)
  // The default is documentation only (S1.2): the model reads it, nothing fills it in (S6.8).
  if (valued?.default !== undefined) pairs.push(`default: ${literal(valued.default.value)}`)
  const summary = pairs.length === 0 ? undefined : `(${pairs.join(', ')})`
  if (node.description === undefined) return summary
  return summary === undefined ? node.description : `${node.description} ${summary}`
}

function literal(value: unknown): string {
  return JSON.stringify(value)
}

/** Renders one node whose children are already rendered (`text`); `depth` is its indentation. */
function renderNode(node: SchemaNode, depth: number, text: Map<SchemaNode, string>): string {
  switch (node.kind) {
    case 'invalid':
      return 'unknown'
    case 'any':
      return 'JsonValue'
    case 'scalar':
      if (node.const !== undefined) return literal(node.const.value)
      if (node.enum !== undefined) return node.enum.map(literal).join(' | ')
      return node.type === 'integer' ? 'number' : node.type
    case 'array': {
      if (node.items === undefined) return 'JsonValue[]'
      const items = text.get(node.items) ?? 'unknown'
      return /[|&]/.test(items) ? `(${items})[]` : `${items}[]`
    }
    case 'oneOf':
      return node.branches.map((branch) => text.get(branch) ?? 'unknown').join(' | ')
    case 'object': {
      const open = !node.closed
      if (node.properties === undefined || node.properties.length === 0) {
        return open ? 'Record<string, JsonValue>' : 'Record<string, never>'
      }
      const pad = INDENT.repeat(depth + 1)
      const required = new Set(node.required)
      const lines = ['{']
      for (const { key, schema } of node.properties) {
        const doc = docText(schema)
        if (doc !== undefined) lines.push(pad + docComment(doc))
        const mark = required.has(key) ? '' : '?'
        lines.push(`${pad}${renderKey(key)}${mark}: ${text.get(schema) ?? 'unknown'}`)
      }
      lines.push(`${INDENT.repeat(depth)}}`)
      const body = lines.join('\n')
      return open ? `${body} & Record<string, JsonValue>` : body
    }
  }
}

/**
 * Renders a subset JSON Schema as a TypeScript type (S5.1–S5.4): scalars, literals from
 * `const`/`enum`, `JsonValue` for an unconstrained node, `T[]`, `A | B` for `oneOf`, and
 * multi-line object literal types with `key?:` for optional keys, one-line JSDoc from property
 * descriptions and ` & Record<string, JsonValue>` unless closed. Total (S5.5): a node outside the
 * subset or otherwise hostile renders as `unknown`. Iterative, so deep schemas do not overflow.
 */
export function schemaToTypeScript(schema: unknown): string {
  try {
    const { root, nodes } = parseSchema(schema, 'schema')
    if (root.kind === 'invalid') return 'unknown'
    // Indentation flows down (pre-order), text flows up (reverse pre-order).
    const depth = new Map<SchemaNode, number>([[root, 0]])
    for (const node of nodes) {
      const own = depth.get(node) ?? 0
      if (node.kind === 'object') for (const p of node.properties ?? []) depth.set(p.schema, own + 1)
      else if (node.kind === 'array' && node.items !== undefined) depth.set(node.items, own)
      else if (node.kind === 'oneOf') for (const branch of node.branches) depth.set(branch, own)
    }
    const text = new Map<SchemaNode, string>()
    for (let i = nodes.length - 1; i >= 0; i--) {
      const node = nodes[i]!
      text.set(node, renderNode(node, depth.get(node) ?? 0, text))
    }
    return text.get(root) ?? 'unknown'
  } catch {
    return 'unknown'
  }
}
