// "Live preview" (issue 44, item 9): a template's workspace-app link opened
// in a new tab, without an opener or a referrer. Only a web link shows the
// button (lib/safe-link.ts: https, or http where the site itself is on http
// or on the site's own origin): a `javascript:` or `data:` value never
// becomes a link. A paid template's link is not public (paid_template_links),
// so only free templates have one to preview.
import { ExternalLink } from 'lucide-react'
import { buttonClass } from '@/components/ui/button'
import { safeLink } from '@/lib/safe-link'

export function LivePreview({ url }: { url: string | null | undefined }) {
  const href = safeLink(url)
  if (!href) return null
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={buttonClass('outline')} data-testid="live-preview">
      <ExternalLink className="h-4 w-4" aria-hidden /> Live preview
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  )
}
