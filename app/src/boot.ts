// The page's entry, kept small so that it runs as soon as it arrives (issue
// 24): on a slow phone connection the entry used to be the client and React
// (~440 kB), and nothing else was asked for until all of it had arrived and
// run. index.html now asks at once for the configuration (/_/app-config.json),
// the start-up (./main.tsx, with React and the client) and the app's code
// (modulepreload links, vite.config.ts); this adds the screen the visit opens
// on, so the screen's code arrives beside them instead of after them. The
// script is async: it does not wait for the stylesheet (which still holds
// the first paint back, as before).
import './index.css'
import { preloadFirstScreen } from './app/first-screen'

function start() {
  import('./main').catch(failed)
}

function failed(error: unknown) {
  // The start-up itself did not load (the connection dropped): main.tsx's own
  // message for a server out of reach, without React, which did not load either.
  console.error('[marketplace] start-up failed', error)
  const root = document.getElementById('root')
  if (!root) return
  const box = document.createElement('div')
  box.setAttribute('role', 'alert')
  box.style.cssText = 'padding: 3rem; text-align: center; font-family: system-ui, sans-serif'
  const title = document.createElement('h1')
  title.style.cssText = 'font-size: 1.5rem; font-weight: 700'
  title.textContent = 'The marketplace cannot reach its server'
  const text = document.createElement('p')
  text.style.cssText = 'margin-top: 0.5rem; color: #475569'
  text.textContent = 'Please try again in a moment.'
  const retry = document.createElement('button')
  retry.type = 'button'
  retry.style.cssText = 'margin-top: 1.25rem; padding: 0.5rem 1rem; border: 1px solid #cbd5e1; border-radius: 0.5rem; background: #fff; font-weight: 500'
  retry.textContent = 'Try again'
  retry.addEventListener('click', () => window.location.reload())
  box.append(title, text, retry)
  root.replaceChildren(box)
}

// An async script (index.html): it may run before the parser has reached
// #root, which main.tsx renders into.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true })
else start()
preloadFirstScreen(window.location.pathname)
