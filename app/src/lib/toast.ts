// The spec's toasts: a title and an optional description. Errors carry the
// title 'Error' unless the spec says otherwise.
import { toast } from 'sonner'
import { isUnreached, UNREACHED_TEXT } from './errors'

/** An error toast; `retry` adds a "Try again" button that repeats what failed (issue 24). */
export function toastError(description: string, title = 'Error', retry?: () => void): void {
  toast.error(title, { description, ...(retry && { action: { label: 'Try again', onClick: retry } }) })
}

export function toastSuccess(title: string, description?: string): void {
  toast.success(title, description ? { description } : undefined)
}

export function toastInfo(title: string, description?: string): void {
  toast(title, description ? { description } : undefined)
}

export function toastWarning(title: string, description?: string): void {
  toast.warning(title, description ? { description } : undefined)
}

/**
 * The text of an error from the SDK (or anything thrown), else the fallback.
 * A request that got no answer (offline, timed out) says so in plain words
 * rather than the browser's 'Failed to fetch' (issue 24).
 */
export function errorText(error: unknown, fallback: string): string {
  if (isUnreached(error)) return UNREACHED_TEXT
  if (error && typeof error === 'object' && 'message' in error) {
    const message = (error as { message: unknown }).message
    if (typeof message === 'string' && message.trim()) return message
  }
  return fallback
}
