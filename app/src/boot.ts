// The page's entry, kept small so that it runs as soon as it arrives (issue
// 24): on a slow phone connection the entry used to be the client and React
// (~440 kB), and nothing else was asked for until all of it had arrived and
// run. index.html now asks at once for the configuration (/_/app-config.json),
// the start-up (./main.tsx, with React and the client) and the app's code
// (modulepreload links, vite.config.ts); this adds the screen the visit opens
// on, so the screen's code arrives beside them instead of after them. The
// script is async; the page's loading shell (index.html) is shown before it
// runs, and the app replaces it once the stylesheet is in (issue 44).
import './index.css'
import { preloadFirstScreen } from './app/first-screen'
import { showStartUpFailure } from './start-up-failure'
import { stylesheetsLoaded } from './stylesheets-loaded'

function start() {
  // The start-up itself may not load (the connection dropped): the same
  // message main.tsx shows when the server is out of reach.
  import('./main').catch(showStartUpFailure)
}

// An async script (index.html): it may run before the parser has reached
// #root (which main.tsx renders into) and the stylesheet after it. The
// start-up's code is asked for now either way (modulepreload links).
const parsed =
  document.readyState === 'loading'
    ? new Promise<void>((done) => document.addEventListener('DOMContentLoaded', () => done(), { once: true }))
    : Promise.resolve()
void parsed.then(() => stylesheetsLoaded()).then(start)
preloadFirstScreen(window.location.pathname)
