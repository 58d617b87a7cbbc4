import { useState } from 'react'
import { Clock, ImageIcon, Trash2 } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { formatDate, formatPrice } from '@/lib/format'
import { CARD_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { TEMPLATES_BUCKET } from '@/config/constants'
import type { PendingTemplate } from '@/lib/types'
import { useDeletePendingTemplate } from '../api/delete-pending-template'

export function PendingTemplates({ creatorId, templates }: { creatorId: string; templates: PendingTemplate[] }) {
  const [confirming, setConfirming] = useState<PendingTemplate | null>(null)
  const remove = useDeletePendingTemplate(creatorId)
  return (
    <>
      <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
        {templates.map((t) => (
          <li key={t.id} className="flex flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm">
            <div className="aspect-[16/10] bg-slate-100">
              {t.preview_image_url ? (
                <img
                  src={renditionUrl(t.preview_image_url, TEMPLATES_BUCKET, CARD_RENDITION) ?? undefined}
                  alt=""
                  {...imageSize(CARD_RENDITION)}
                  loading="lazy"
                  decoding="async"
                  className="h-full w-full object-cover"
                />
              ) : (
                <div className="flex h-full items-center justify-center text-slate-400"><ImageIcon className="h-8 w-8" aria-hidden /></div>
              )}
            </div>
            <div className="flex flex-1 flex-col p-4">
              <div className="flex items-center justify-between gap-2">
                <Badge tone="warning"><Clock className="h-3 w-3" aria-hidden /> {t.status}</Badge>
                <span className="text-sm font-semibold text-slate-900">{formatPrice(t.price)}</span>
              </div>
              <h3 className="mt-2 font-semibold text-slate-900">{t.title}</h3>
              <p className="mt-1 line-clamp-2 text-sm text-slate-600">{t.description}</p>
              <div className="mt-auto flex items-center justify-between pt-4">
                <span className="text-xs text-slate-500">Submitted {formatDate(t.created_at)}</span>
                <Button variant="dangerGhost" size="sm" onClick={() => setConfirming(t)} aria-label={`Delete ${t.title}`}>
                  <Trash2 className="h-4 w-4" aria-hidden /> Delete
                </Button>
              </div>
            </div>
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={!!confirming}
        onOpenChange={(open) => !open && setConfirming(null)}
        title="Are you sure?"
        description="This action cannot be undone. This will permanently delete your template"
        confirmLabel="Delete"
        onConfirm={() => confirming && remove.mutate(confirming.id)}
      />
    </>
  )
}
