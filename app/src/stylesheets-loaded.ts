/**
 * The app's stylesheet, which the build puts after the loading shell in
 * index.html (vite.config.ts) so that it no longer holds the first paint
 * back: boot.ts starts the app only once every stylesheet of the page is in
 * (or failed to load), so the app never shows unstyled.
 */
export function stylesheetsLoaded(doc: Document = document): Promise<void> {
  const pending = [...doc.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].filter((link) => !link.sheet)
  return Promise.all(
    pending.map(
      (link) =>
        new Promise<void>((done) => {
          link.addEventListener('load', () => done(), { once: true })
          link.addEventListener('error', () => done(), { once: true })
        }),
    ),
  ).then(() => undefined)
}
