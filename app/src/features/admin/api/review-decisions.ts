// An admin's decisions on a submission. Both run as one server-side
// transaction: approval publishes the template and removes the pending row;
// rejection records the reason and date, copies the submission into the
// rejected store and removes the pending row (spec section 4, the steps of a
// rejection), so a failure half-way leaves nothing half-done.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { reviewKeys } from './get-pending-review'

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
