import { render } from 'preact'
import { SessionPage } from './session-page.js'
import { SessionsPage } from './sessions-page.js'
import './style.css'

/** The page for the current path: `/session/<id>` or the sessions list. */
function App() {
  const match = /^\/session\/([^/]+)$/.exec(location.pathname)
  return match === null ? <SessionsPage /> : <SessionPage id={decodeURIComponent(match[1]!)} />
}

render(<App />, document.getElementById('app')!)
