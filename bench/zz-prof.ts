import { createToolRuntime, defineTool, parseFrozenJson } from '@tooltx/core'

const def = defineTool({
  name: 'find_files',
  description: 'x',
  parameters: {
    path: { type: 'string', required: true },
    pattern: { type: 'string', required: true },
    limit: { type: 'integer', required: true },
    offset: { type: 'integer', required: true },
    recursive: { type: 'boolean', required: true },
  },
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { matches: { type: 'integer', required: true }, first: { type: 'string', required: true } },
    },
    render: (_a, v) => [{ type: 'text', text: `${v.matches} matches, first ${v.first}` }],
  },
  execute: async (a) => ({ matches: a.limit - a.offset, first: `${a.path}/${a.pattern}` }),
})
const rt = createToolRuntime()
rt.register(def)
const raw = JSON.stringify({
  path: '/srv/project/src',
  pattern: '*.ts',
  limit: 50,
  offset: 10,
  recursive: true,
})
const signal = new AbortController().signal
const end = performance.now() + 4000
let n = 0
while (performance.now() < end) {
  for (let i = 0; i < 1000; i++) {
    const p = parseFrozenJson(raw, 'arguments')
    if (!p.ok) throw 1
    await rt.execute({ callId: 'c', name: 'find_files', arguments: p.value, signal })
    n++
  }
}
console.log('per call µs', 4000e3 / n)
