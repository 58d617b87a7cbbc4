// What the two download pages share: their card and the Download File link.
import type { ReactNode } from 'react'
import { Download } from 'lucide-react'
import { ButtonLink, buttonClass } from '@/components/ui/button'
import { Container } from '@/components/ui/layout'
import { downloadTarget } from '@/lib/download'
import { UNSAFE_LINK } from '@/lib/safe-link'

/** A download page's card: icon, title, what it says, and Back to Marketplace. */
export function DownloadCard({ icon, title, children }: { icon?: ReactNode; title: string; children: ReactNode }) {
  return (
    <Container className="py-10 sm:py-16">
      <div className="mx-auto max-w-lg rounded-2xl border border-slate-200 bg-white p-6 text-center shadow-sm sm:p-8">
        {icon && <div className="mb-3 flex justify-center">{icon}</div>}
        <h1 className="text-2xl font-bold text-slate-900">{title}</h1>
        {children}
        <div className="mt-6">
          <ButtonLink to="/discover" variant="outline">
            Back to Marketplace
          </ButtonLink>
        </div>
      </div>
    </Container>
  )
}

/**
 * 'Download File': a link drawn as a button, since it leaves for the file's
 * URL. A file of this site's storage is downloaded (`download`; the server's
 * signed URL also asks for an attachment named like the file), so the page
 * stays; a workspace-app link opens in a new tab. A link that is not a web
 * link (`javascript:`, `data:`...) is never drawn: an error says so instead.
 */
export function DownloadFileLink({ href }: { href: string }) {
  const target = downloadTarget(href)
  if (!target) {
    return (
      <p role="alert" className="text-sm text-red-700">
        {UNSAFE_LINK}
      </p>
    )
  }
  if (target.kind === 'file') {
    return (
      <a href={target.href} download className={buttonClass('primary', 'lg', 'w-full sm:w-auto')}>
        <Download className="h-4 w-4" aria-hidden /> Download File
      </a>
    )
  }
  return (
    <a href={target.href} target="_blank" rel="noopener noreferrer" className={buttonClass('primary', 'lg', 'w-full sm:w-auto')}>
      <Download className="h-4 w-4" aria-hidden /> Download File
    </a>
  )
}
