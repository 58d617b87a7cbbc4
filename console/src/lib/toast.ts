import { toast } from 'sonner'
import { errorMessage } from './api'

export function toastError(error: unknown, title = 'Error'): void {
  toast.error(title, { description: errorMessage(error) })
}

export function toastSuccess(title: string, description?: string): void {
  toast.success(title, description ? { description } : undefined)
}
