// The few browser effects the app causes, in one object so tests can watch them.
export const browser = {
  /** Leaves the app for a URL (download links). */
  assign(url: string): void {
    window.location.assign(url)
  },
  async copy(text: string): Promise<void> {
    await navigator.clipboard.writeText(text)
  },
}

export function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
