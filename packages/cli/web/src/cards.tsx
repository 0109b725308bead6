import type { CallView, ContentBlock, ResultView } from '@tooltx/core'
import { useEffect, useState } from 'preact/hooks'
import {
  type AskStanding,
  askStanding,
  expiredWords,
  judgeAgainIn,
  waitingWords,
} from '../../src/display/ask-standing.js'
import { type DisplayEntry, fetchEvent } from './api.js'
import { highlight } from './highlight.js'
import { lineDiff } from './line-diff.js'
import { type CardRow, nestedCalls, type SubCallNode } from './rows.js'

/** `text` pretty-printed when it is JSON, else as it is. */
function asJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

function contentText(content: readonly ContentBlock[] | undefined): string {
  return (content ?? [])
    .map((block) =>
      block.type === 'text' && typeof block.text === 'string' ? block.text : `[${block.type} content]`,
    )
    .join('\n')
}

/**
 * A running call's mark (G3.8): `running… <n> s`, counted each second from when the viewer saw
 * the call, or `running…` for a call read from the log, whose start the viewer did not see.
 */
function Running({ since }: { since: number | undefined }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (since === undefined) return undefined
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [since])
  const seconds = since === undefined ? undefined : Math.max(0, Math.floor((now - since) / 1000))
  return <span class="muted running">{seconds === undefined ? 'running…' : `running… ${seconds} s`}</span>
}

/**
 * How a card's ask stands now (`askStanding`, K5.17), or `undefined` without one. A durable ask's
 * expiry is no event, so a timer renders the card again when it comes (G3.11): the page then
 * shows it expired without a reload or a new event.
 */
function useStanding(
  asked: Extract<DisplayEntry, { kind: 'approval' }> | undefined,
  decided: boolean,
): AskStanding | undefined {
  const [now, setNow] = useState(() => Date.now())
  const standing = asked === undefined ? undefined : askStanding(asked.expiresAt, decided, now)
  useEffect(() => {
    const wait = standing === 'waiting' ? judgeAgainIn(asked?.expiresAt, Date.now()) : undefined
    if (wait === undefined) return undefined
    const timer = setTimeout(() => setNow(Date.now()), wait)
    return () => clearTimeout(timer)
  }, [standing, asked?.expiresAt, now])
  return standing
}

/** The body of a call card: the diff, the command, or the arguments as JSON (G3.2). */
function CallBody({ view }: { view: CallView }) {
  switch (view.card) {
    case 'diff':
      return (
        <div class="diffs">
          {view.diffs.map((diff) => (
            <figure class="diff" key={diff.path}>
              <figcaption>
                {diff.oldText === null ? 'new file' : 'modified'}: <code>{diff.path}</code>
              </figcaption>
              <pre>
                {lineDiff(diff.oldText, diff.newText).map((line, i) => (
                  <span key={i} class={line.op === '+' ? 'add' : line.op === '-' ? 'del' : 'same'}>
                    {`${line.op} ${line.text}\n`}
                  </span>
                ))}
              </pre>
            </figure>
          ))}
        </div>
      )
    case 'terminal':
      return (
        <p class="command">
          <code>$ {view.title}</code>
          {view.cwd !== undefined ? <span class="muted"> in {view.cwd}</span> : null}
          {view.description !== undefined ? <span class="muted"> — {view.description}</span> : null}
        </p>
      )
    case 'generic':
      return view.rawInput === undefined ? null : <pre class="json">{asJson(view.rawInput)}</pre>
  }
}

/** The body of a result card: lines with numbers, output, hits, or the content (G3.2). */
function ResultBody({ view }: { view: ResultView }) {
  switch (view.card) {
    case 'read':
      return (
        <table class="lines">
          <caption>
            {view.path}: lines {view.lines[0]?.number ?? 0}–{view.lines.at(-1)?.number ?? 0} of{' '}
            {view.totalLines}
          </caption>
          <tbody>
            {view.lines.map((line) => (
              <tr key={line.number}>
                <th scope="row">{line.number}</th>
                <td>
                  <code>{line.text}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )
    case 'terminal':
      return (
        <div>
          <pre class="output">{(view.output ?? '').trimEnd()}</pre>
          {view.exitCode !== undefined ? <p class="muted">exit code {view.exitCode}</p> : null}
          {view.signal !== undefined ? <p class="muted">signal {view.signal}</p> : null}
        </div>
      )
    case 'diff':
      return (
        <ul>
          {view.diffs.map((diff) => (
            <li key={diff.path}>wrote {diff.path}</li>
          ))}
        </ul>
      )
    case 'search':
      if (view.shape === 'paths') {
        return (
          <ul class="hits">
            {view.paths.map((path) => (
              <li key={path}>
                <code>{path}</code>
              </li>
            ))}
            {view.truncated ? <li class="muted">({view.total} in all)</li> : null}
          </ul>
        )
      }
      return (
        <div class="hits">
          {view.files.map((file) => (
            <div key={file.path}>
              <p>
                <code>{file.path}</code>
              </p>
              <ul>
                {file.matches.map((match) => (
                  <li key={match.line}>
                    <span class="line-number">{match.line}</span> <code>{match.text}</code>
                  </li>
                ))}
              </ul>
            </div>
          ))}
          <p class="muted">
            {view.total} match(es){view.truncated ? ', truncated' : ''}
          </p>
        </div>
      )
    case 'web':
      return view.kind === 'fetch' ? (
        <p>
          <code>{view.url}</code> → {view.statusCode}
        </p>
      ) : (
        <ul>
          {view.sources.map((source) => (
            <li key={source.url}>{source.title ?? source.url}</li>
          ))}
        </ul>
      )
    case 'generic':
      return <pre class="json">{asJson(contentText(view.content))}</pre>
  }
}

/** A Code Mode program with its tokens highlighted. */
function Program({ code }: { code: string }) {
  return (
    <pre class="program">
      <code>
        {highlight(code).map((token, i) =>
          token.kind === 'plain' ? (
            token.text
          ) : (
            <span key={i} class={`tok-${token.kind}`}>
              {token.text}
            </span>
          ),
        )}
      </code>
    </pre>
  )
}

/** The nested calls of a Code Mode program, as a tree. */
function SubCalls({ nodes }: { nodes: readonly SubCallNode[] }) {
  return (
    <ul class="tree">
      {nodes.map((node) => (
        <li key={node.call.subCallId}>
          <span class="tool">{node.call.name}</span>{' '}
          <code class="args">{JSON.stringify(node.call.arguments)}</code>{' '}
          {node.result === undefined ? (
            <span class="muted">running</span>
          ) : node.result.isError ? (
            <span class="badge failure">{node.result.code}</span>
          ) : (
            <span class="ok">done</span>
          )}
          {node.result?.text ? <pre class="output">{node.result.text}</pre> : null}
          {node.children.length > 0 ? <SubCalls nodes={node.children} /> : null}
        </li>
      ))}
    </ul>
  )
}

/** Each event of a card, with its raw JSON shown on demand. */
function RawEvents({ session, seqs }: { session: string; seqs: readonly number[] }) {
  const [shown, setShown] = useState<Record<number, string>>({})
  return (
    <div class="raw">
      {seqs.map((seq) => (
        <div key={seq}>
          <button
            type="button"
            class="link"
            aria-expanded={shown[seq] !== undefined}
            onClick={async () => {
              if (shown[seq] !== undefined) {
                const { [seq]: _gone, ...rest } = shown
                setShown(rest)
                return
              }
              const event = await fetchEvent(session, seq).catch((error: Error) => ({ error: error.message }))
              setShown({ ...shown, [seq]: JSON.stringify(event, null, 2) })
            }}
          >
            raw event {seq}
          </button>
          {shown[seq] !== undefined ? <pre class="json">{shown[seq]}</pre> : null}
        </div>
      ))}
    </div>
  )
}

/** A tool call's card (G3.2): its header always, its body when expanded. */
export function Card(props: {
  card: CardRow
  session: string
  open: boolean
  onToggle: () => void
  highlighted: boolean
}) {
  const { card, session, open, onToggle, highlighted } = props
  const { call, result, approvals } = card
  const body = `body-${call.seq}`
  const asked = approvals.find((a) => a.phase === 'asked')
  const decided = approvals.find((a) => a.phase === 'decided')
  const standing = useStanding(asked, decided !== undefined)
  // A durable ask no one has decided: the call waits for a person, or was denied by its expiry;
  // either way it is not running.
  const undecided = standing === 'waiting' || standing === 'expired'
  const nested = nestedCalls(card)
  const failedInside = nested.filter((node) => node.result?.isError).length
  return (
    <article
      class={`card${result?.isError ? ' failed' : ''}${highlighted ? ' target' : ''}`}
      id={`e${call.seq}`}
      aria-label={`${call.name}: ${call.title}`}
    >
      <header>
        <button type="button" class="toggle" aria-expanded={open} aria-controls={body} onClick={onToggle}>
          <span class="chevron" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <span class="tool">{call.name}</span>
          <span class="title">{call.title}</span>
        </button>
        {result === undefined && undecided ? null : result === undefined ? (
          <Running since={call.startedAt} />
        ) : null}
        {result?.isError ? <span class="badge failure">{result.code}</span> : null}
        {result !== undefined && !result.isError ? <span class="ok">ok</span> : null}
        {result?.durationMs !== undefined ? <span class="muted duration">{result.durationMs} ms</span> : null}
        {result?.provenance?.integrity === 'untrusted' ? (
          <span class="badge untrusted">untrusted</span>
        ) : null}
        {result?.provenance?.confidential === true ? (
          <span class="badge confidential">confidential</span>
        ) : null}
        {decided !== undefined ? (
          <span class="badge approval">approval: {decided.outcome}</span>
        ) : standing === 'expired' ? (
          <span class="badge approval expired" title={expiredWords(asked?.expiresAt ?? '')}>
            approval: expired
          </span>
        ) : asked !== undefined ? (
          <span class="badge approval">waiting for approval</span>
        ) : null}
        {nested.length > 0 ? (
          <span class="muted nested">
            {nested.length} nested
            {failedInside > 0 ? <span class="failure">, {failedInside} failed</span> : null}
          </span>
        ) : null}
        <a class="anchor" href={`#e${call.seq}`} aria-label={`link to call ${call.seq}`}>
          #{call.seq}
        </a>
      </header>
      {open ? (
        <div class="body" id={body}>
          {call.program !== undefined ? <Program code={call.program} /> : <CallBody view={call.view} />}
          {approvals.map((approval) => {
            // A reason on more lines (a write's diff, K2.15) shows its first line here and the rest as it was shown.
            const [said, ...shown] = (approval.reason ?? '').split('\n')
            return (
              <div key={approval.seq}>
                <p class="approval" id={`e${approval.seq}`}>
                  {approval.phase === 'asked'
                    ? `Approval asked${said ? `: ${said}` : ''}${approval.expiresAt ? (standing === 'waiting' ? ` (${waitingWords(approval.expiresAt)})` : ` (durable, until ${approval.expiresAt})`) : ''}`
                    : `Approval decided: ${approval.outcome}${approval.by ? ` by ${approval.by}` : ''}${approval.by && said ? ` (${said})` : ''}`}
                  {approval.digest !== undefined ? (
                    <span class="muted">
                      {' '}
                      digest <code>{approval.digest}</code>
                    </span>
                  ) : null}
                </p>
                {approval.phase === 'asked' && shown.length > 0 ? (
                  <pre class="approval-change">
                    {shown.map((line, i) => (
                      <span
                        key={i}
                        class={/^\+(?!\+\+ )/.test(line) ? 'add' : /^-(?!-- )/.test(line) ? 'del' : undefined}
                      >
                        {`${line}\n`}
                      </span>
                    ))}
                  </pre>
                ) : null}
              </div>
            )
          })}
          {standing === 'expired' && asked?.expiresAt !== undefined ? (
            <p class="approval expired">Approval {expiredWords(asked.expiresAt)}</p>
          ) : null}
          {card.subCalls.length > 0 ? <SubCalls nodes={card.subCalls} /> : null}
          {result !== undefined ? <ResultBody view={result.view} /> : null}
          <RawEvents session={session} seqs={card.seqs} />
        </div>
      ) : null}
    </article>
  )
}
