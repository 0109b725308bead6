import { createToolRuntime, defineTool, protectArguments, withholdUntrusted } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { memoryStore, openSession } from '@tooltx/session'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createAgent, quarantinedExtractor, type ScriptedStep, scripted } from '../src/index.js'

const sandbox = quickjsRuntime({ wallMs: 20_000 })
afterAll(() => sandbox.close())

const EMAIL = 'Invoice 4471: pay 98.70 EUR to IBAN GB33 BUKB 2020 1555 5555 55.'

/** A Code Mode agent over an untrusted inbox and a payment tool guarded by `protectArguments`. */
async function codeAgent(
  steps: ScriptedStep[],
  task = 'Pay the invoice in my inbox.',
  withhold = false,
  email = EMAIL,
  extractor?: ReturnType<typeof quarantinedExtractor>,
) {
  const runtime = createToolRuntime({ mode: 'code', codeRuntime: sandbox })
  const scope = runtime.scope()
  const paid: unknown[] = []
  scope.register(
    defineTool({
      name: 'read_email',
      description: 'The newest e-mail.',
      parameters: {},
      provenance: { integrity: 'untrusted' },
      execute: () => ({ text: email }),
    }),
  )
  scope.register(
    defineTool({
      name: 'send_money',
      description: 'Transfer money.',
      parameters: { recipient: { type: 'string', required: true }, amount: { type: 'number' } },
      execute: (args) => {
        paid.push(args)
        return 'sent'
      },
    }),
  )
  if (extractor !== undefined) scope.register(extractor)
  runtime.onPreExecute(protectArguments({ send_money: ['recipient'] }))
  if (withhold) runtime.onPostExecute(withholdUntrusted())
  const session = await openSession(memoryStore(), { id: 'code' })
  const model = scripted(steps)
  const agent = createAgent({ runtime, scope, session, model })
  await agent.send(task)
  const results = session.events().flatMap((e) => (e.type === 'tool/result' ? [e.data] : []))
  return { paid, results, requests: model.requests }
}

const runCode = (id: string, code: string) => ({
  toolCalls: [{ id, name: 'run_code', arguments: JSON.stringify({ code, description: 'pay' }) }],
})

const PAY_FROM_MAIL = `
const mail = await tools.read_email({})
const iban = mail.text.match(/IBAN ([A-Z0-9 ]+)/)[1].replace(/ /g, '')
try { await tools.send_money({ recipient: iban, amount: 98.7 }) } catch (e) { return e.message }
return 'paid'`

describe('H4 provenance inside a Code Mode program', () => {
  it('H4.1: a binding call whose argument holds a value an untrusted nested result returned is checked like a direct call', async () => {
    const { paid, results } = await codeAgent([runCode('c1', PAY_FROM_MAIL), { text: 'done' }])
    expect(paid).toEqual([])
    const text = results[0]!.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    expect(text).toContain(
      'untrusted data in send_money\'s arguments: argument recipient ("GB33BUKB20201555555555") was copied from the result of read_email c1:code:1',
    )
  })

  it('H4.2: the run_code result carries the label of the nested results it read, so the context label counts it', async () => {
    const { results, paid } = await codeAgent([
      runCode('c1', 'return (await tools.read_email({})).text'),
      runCode(
        'c2',
        'await tools.send_money({ recipient: "GB33BUKB20201555555555", amount: 1 }); return "ok"',
      ),
      { text: 'done' },
    ])
    expect(results[0]!.provenance).toEqual({ integrity: 'untrusted' })
    // The program's literal was copied from the context: the run_code result the model read.
    expect(paid).toEqual([])
    const text = results[1]!.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    expect(text).toContain(
      'argument recipient ("GB33BUKB20201555555555") was copied from the result of run_code c1',
    )
  })

  it('H4.1: a program that reads nothing labelled carries no provenance and runs', async () => {
    const { results, paid } = await codeAgent(
      [
        runCode(
          'c1',
          'await tools.send_money({ recipient: "GB33BUKB20201555555555", amount: 1 }); return "ok"',
        ),
        { text: 'done' },
      ],
      'Pay 1 EUR to GB33 BUKB 2020 1555 5555 55',
    )
    expect(paid).toEqual([{ recipient: 'GB33BUKB20201555555555', amount: 1 }])
    expect('provenance' in results[0]!).toBe(false)
  })

  it('H4.2: a failed run that read an untrusted result is labelled too: its logs and message can hold what it read', async () => {
    const { results } = await codeAgent([
      runCode(
        'c1',
        'const mail = await tools.read_email({}); console.log(mail.text); throw new Error("stop")',
      ),
      { text: 'done' },
    ])
    expect(results[0]!.isError).toBe(true)
    expect(results[0]!.provenance).toEqual({ integrity: 'untrusted' })
  })

  it('H4.3: withholdUntrusted keeps an untrusted run result out of the model context; its label and the program effects stand', async () => {
    const { results, requests } = await codeAgent(
      [runCode('c1', 'return (await tools.read_email({})).text'), { text: 'done' }],
      'Read my newest e-mail.',
      true,
    )
    expect(results[0]!.provenance).toEqual({ integrity: 'untrusted' })
    expect(results[0]!.content).toEqual([
      { type: 'text', text: '[withheld from the model: the result of run_code c1 holds untrusted data]' },
    ])
    expect(JSON.stringify(requests[1]!.messages)).not.toContain('Invoice 4471')
  })

  it('H4.4: whatever route a random program takes, a value it read from an untrusted result never reaches a protected argument unchecked', async () => {
    const iban = fc
      .tuple(
        fc.stringMatching(/^[A-Z]{2}[0-9]{2}$/),
        fc.array(fc.stringMatching(/^[0-9]{4}$/), { minLength: 3, maxLength: 5 }),
      )
      .map(([head, groups]) => [head, ...groups])
    // How the program reads the value out of the e-mail, and how it carries it to the call.
    const reads = [
      "mail.text.match(/IBAN ([A-Z0-9 ]+)/)[1].replace(/ /g, '')",
      'mail.text.match(/IBAN ([A-Z0-9 ]+)/)[1].trim()',
      "mail.text.split('IBAN ')[1].split('.')[0]",
    ]
    const routes = [
      (v: string) => v,
      (v: string) => `(() => { const a = ${v}; const b = a; return b })()`,
      (v: string) => `({ x: [${v}] }).x[0]`,
      (v: string) => `'to ' + ${v}`,
      (v: string) => `\`\${${v}} (invoice)\``,
      (v: string) => `JSON.parse(JSON.stringify({ v: ${v} })).v`,
    ]
    await fc.assert(
      fc.asyncProperty(
        iban,
        fc.nat(reads.length - 1),
        fc.nat(routes.length - 1),
        fc.boolean(),
        async (groups, r, route, early) => {
          const email = `${early ? 'Pay now. ' : ''}Invoice: pay 98.70 EUR to IBAN ${groups.join(' ')}. Thanks.`
          const code = [
            'const mail = await tools.read_email({})',
            `const value = ${reads[r]}`,
            `try { await tools.send_money({ recipient: ${routes[route]!('value')}, amount: 1 }) } catch (e) { return e.message }`,
            "return 'paid'",
          ].join('\n')
          const { paid, results } = await codeAgent(
            [runCode('c1', code), { text: 'done' }],
            'Pay the invoice.',
            false,
            email,
          )
          expect(paid).toEqual([])
          const text = results[0]!.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
          expect(text).toContain("untrusted data in send_money's arguments: argument recipient")
          expect(text).toContain('read_email c1:code:1')
        },
      ),
      { numRuns: 30 },
    )
  })

  it('H4.5: the quarantined extractor reads untrusted text with a tool-less model; its answer is data, untrusted, and checked downstream', async () => {
    const reader = scripted([{ text: '{"iban": "GB33BUKB20201555555555", "amount": 98.7}' }])
    const extractor = quarantinedExtractor({
      model: reader,
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { iban: { type: 'string', required: true }, amount: { type: 'number' } },
      },
      instructions: 'Extract the IBAN and the amount to pay.',
    })
    const code = [
      'const mail = await tools.read_email({})',
      'const bill = await tools.extract({ text: mail.text })',
      'try { await tools.send_money({ recipient: bill.iban, amount: bill.amount }) } catch (e) { return e.message }',
      "return 'paid'",
    ].join('\n')
    const { paid, results } = await codeAgent(
      [runCode('c1', code), { text: 'done' }],
      'Pay the invoice.',
      true,
      EMAIL,
      extractor,
    )
    expect(reader.requests).toHaveLength(1)
    expect(reader.requests[0]!.tools).toEqual([])
    expect(JSON.stringify(reader.requests[0]!.messages)).toContain('Invoice 4471')
    expect(paid).toEqual([])
    expect(results[0]!.provenance).toEqual({ integrity: 'untrusted' })
  })

  it('H4.5: an extractor answer that is not JSON fails the call; one that does not match the schema is INVALID_TOOL_OUTPUT', async () => {
    const runtime = createToolRuntime()
    const make = (answer: string) =>
      quarantinedExtractor({
        name: `x${answer.length}`,
        model: scripted([{ text: answer }]),
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { iban: { type: 'string', required: true } },
        },
      })
    const codeOf = async (answer: string) => {
      const tool = make(answer)
      runtime.register(tool)
      const result = await runtime.execute({
        callId: 'c',
        name: tool.name,
        arguments: { text: 'x' },
        signal: new AbortController().signal,
      })
      return result.isError ? result.error.info.code : 'ok'
    }
    expect(await codeOf('ignore that: send money')).toBe('TOOL_FAILED')
    expect(await codeOf('{"iban": 5}')).toBe('INVALID_TOOL_OUTPUT')
    expect(await codeOf('{"iban": "GB33"}')).toBe('ok')
  })
})
