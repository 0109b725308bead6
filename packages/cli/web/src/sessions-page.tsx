import { useEffect, useState } from 'preact/hooks'
import { fetchSessions, type SessionOverview } from './api.js'

/** `iso` as a short local date and time. */
export function when(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString()
}

/** The sessions page (G3.1): every session, newest first, with a search over titles and ids. */
export function SessionsPage() {
  const [data, setData] = useState<{ store: string; sessions: SessionOverview[] } | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [query, setQuery] = useState('')
  useEffect(() => {
    fetchSessions().then(setData, (e: Error) => setError(e.message))
  }, [])
  const wanted = query.trim().toLowerCase()
  const shown = (data?.sessions ?? []).filter(
    (s) => wanted === '' || s.title.toLowerCase().includes(wanted) || s.id.toLowerCase().includes(wanted),
  )
  return (
    <main class="sessions">
      <h1>Sessions</h1>
      {data !== undefined ? <p class="muted">from {data.store}</p> : null}
      {error !== undefined ? <p role="alert">Could not load the sessions: {error}</p> : null}
      <label class="search">
        Search <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      </label>
      {data === undefined ? (
        <p>Loading…</p>
      ) : data.sessions.length === 0 ? (
        <p>No sessions yet: run `npx tooltx demo` to make one.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
              <th scope="col">Turns</th>
              <th scope="col">Calls</th>
              <th scope="col">Failures</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((s) => (
              <tr key={s.id}>
                <td>
                  <a href={`/session/${encodeURIComponent(s.id)}`}>{s.title}</a>
                  <div class="muted id">{s.id}</div>
                </td>
                <td>
                  <span class={`status status-${s.status.replaceAll(' ', '-')}`}>{s.status}</span>
                </td>
                <td>{when(s.created)}</td>
                <td>{when(s.updated)}</td>
                <td>{s.turns}</td>
                <td>{s.calls}</td>
                <td>{s.failures}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  )
}
