// The spec's toasts: a title and an optional description. Errors carry the
// title 'Error' unless the spec says otherwise.
import { toast } from 'sonner'

export function toastError(description: string, title = 'Error'): void {
  toast.error(title, { description })
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

/** The text of an error from the SDK (or anything thrown), else the fallback. */
export function errorText(error: unknown, fallback: string): string {
  if (error && typeof error === 'object' && 'message' in error) {
    const message = (error as { message: unknown }).message
    if (typeof message === 'string' && message.trim()) return message
  }
  return fallback
}
