import { Download } from 'lucide-react'
import { buttonClass } from '@/components/ui/button'

/**
 * 'Download File': a link drawn as a button, since it leaves for the file's
 * URL (a same-site signed URL downloads; a workspace-app link opens in a new
 * tab).
 */
export function DownloadFileLink({ href }: { href: string }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={buttonClass('primary', 'lg', 'w-full sm:w-auto')}>
      <Download className="h-4 w-4" aria-hidden /> Download File
    </a>
  )
}
