// Replacing a submission that waits for review (/upload?template={id} of a
// pending template). Creators may insert and delete their own pending rows but
// not update them (policies/0005_templates_pending_approval.sql), so the new
// row (a pending row, or a draft) is written first and the old pending row
// deleted after it: a failed write leaves the old submission as it was, and a
// failed delete removes the new row again and fails. Either way nothing the
// user had is lost, and they never end up with two copies.
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import type { StoredObject } from './upload-template-file'

/**
 * The old pending row was not there to delete: reviewed (approved or
 * rejected) or deleted since it was loaded. The new row is removed again.
 */
export class SubmissionGoneError extends Error {
  constructor() {
    super('The pending template is no longer waiting for review')
    this.name = 'SubmissionGoneError'
  }
}

/** A uuid made here, so that a new row can be found and removed again by its id. */
export function newRowId(): string {
  const c = globalThis.crypto
  if (typeof c.randomUUID === 'function') return c.randomUUID()
  // randomUUID needs a secure context; getRandomValues does not.
  const b = c.getRandomValues(new Uint8Array(16))
  b[6] = (b[6] & 0x0f) | 0x40
  b[8] = (b[8] & 0x3f) | 0x80
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/**
 * Deletes the user's pending row `pendingId` once its replacement is written.
 * When that fails (or finds nothing to delete), `undo` removes the
 * replacement and the error is thrown. Should `undo` fail too, the
 * replacement stays and so must the files it uses: `stored` is emptied, so
 * the caller's clean-up of a failed write leaves them alone.
 */
export async function deleteReplacedPending(
  userId: string,
  pendingId: string,
  undo: () => PromiseLike<{ error: unknown }>,
  stored: StoredObject[],
): Promise<void> {
  const removed = await getSupabase()
    .from('templates_pending_approval')
    .delete()
    .eq('id', pendingId)
    .eq('creator_id', userId)
    .select('id')
  const gone = !removed.error && Array.isArray(removed.data) && removed.data.length === 0
  if (!removed.error && !gone) return
  const undone = await undo()
  if (undone.error) {
    logQuiet('removing the replacement of a pending template', undone.error)
    stored.length = 0
  }
  throw removed.error ?? new SubmissionGoneError()
}
