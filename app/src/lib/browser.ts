// The few browser effects the app causes, in one object so tests can watch them.
export const browser = {
  /** Leaves the app for a URL (a payment provider's onboarding page). */
  assign(url: string): void {
    window.location.assign(url)
  },
  /**
   * Saves a file of this site without leaving the page: a temporary
   * `<a download>` clicked (the storage's signed URL also answers as an
   * attachment, so the page is never replaced by the file).
   */
  download(url: string): void {
    const a = document.createElement('a')
    a.href = url
    a.download = ''
    a.rel = 'noopener'
    a.style.display = 'none'
    document.body.appendChild(a)
    a.click()
    a.remove()
  },
  /** Opens a web link in a new tab that cannot reach back to this one. */
  openTab(url: string): void {
    window.open(url, '_blank', 'noopener,noreferrer')
  },
  async copy(text: string): Promise<void> {
    await navigator.clipboard.writeText(text)
  },
}

export function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
