// An admin's decisions on a submission. Both run as one server-side
// transaction: approval publishes the template and removes the pending row;
// rejection records the reason and date, copies the submission into the
// rejected store and removes the pending row (spec section 4, the steps of a
// rejection), so a failure half-way leaves nothing half-done.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { reviewKeys, type ReviewTemplate } from './get-pending-review'

/**
 * Why Approve is disabled for a submission with nothing to download, in the
 * words the server refuses it with (admin_approve_template,
 * migrations/20261128000100_approval_requires_file.sql).
 */
export const NO_DOWNLOAD_TEXT = 'This template has no file or link to download; ask the creator to add one'

/** A submission is downloadable with a stored file or a link, as downloads are served. */
export function hasDownload(t: Pick<ReviewTemplate, 'template_file_url' | 'template_url'>): boolean {
  return !!t.template_file_url?.trim() || !!t.template_url?.trim()
}

/**
 * What a refused approval says: the server's own words when it refused the
 * submission itself (P0001, a 400, e.g. nothing to download), else the
 * spec's 'Failed to update template status'.
 */
export function approvalErrorText(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null
  if (e && e.code === 'P0001' && typeof e.message === 'string' && e.message.trim()) return e.message
  return 'Failed to update template status'
}

export async function approveTemplate(pendingTemplateId: string): Promise<void> {
  const { error } = await getSupabase().rpc('admin_approve_template', { pending_template_id: pendingTemplateId })
  if (error) throw error
}

export async function rejectTemplate(pendingTemplateId: string, reason: string): Promise<void> {
  const { error } = await getSupabase().rpc('admin_reject_template', {
    pending_template_id: pendingTemplateId,
    reason: reason.trim(),
  })
  if (error) throw error
}

export type Decision = { kind: 'approve'; id: string } | { kind: 'reject'; id: string; reason: string }

export function useReviewDecision() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (decision: Decision) =>
      decision.kind === 'approve' ? approveTemplate(decision.id) : rejectTemplate(decision.id, decision.reason),
    onSettled: () => queryClient.invalidateQueries({ queryKey: reviewKeys.all }),
  })
}
