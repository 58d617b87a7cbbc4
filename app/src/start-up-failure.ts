// The screen of a start-up that failed: the server out of reach while the
// client read its configuration (main.tsx), or the start-up's own code not
// loaded (boot.ts). Plain DOM, since React may not have loaded either; a
// reload is the retry.

export function showStartUpFailure(error: unknown): void {
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
  retry.style.cssText =
    'margin-top: 1.25rem; padding: 0.5rem 1rem; border: 1px solid #cbd5e1; border-radius: 0.5rem; background: #fff; font-weight: 500'
  retry.textContent = 'Try again'
  retry.addEventListener('click', () => window.location.reload())
  box.append(title, text, retry)
  root.replaceChildren(box)
}
