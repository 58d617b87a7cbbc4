// "Updated on <date>" and the latest changelog line of a template whose
// creator published a new version (issue 44, item 6); nothing for a
// template still at its first version, or while (or if) the read fails.
import { History } from 'lucide-react'
import { formatDate } from '@/lib/format'
import { useLatestVersion } from '../api/get-latest-version'

export function VersionNote({ templateId }: { templateId: string }) {
  const latest = useLatestVersion(templateId)
  const version = latest.data
  if (!version) return null
  return (
    <section aria-label="Latest update" className="rounded-2xl border border-slate-200 bg-white p-4 sm:p-6" data-testid="version-note">
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-700">
        <History className="h-4 w-4 text-brand-600" aria-hidden />
        <span className="font-semibold text-slate-900">Updated on {formatDate(version.created_at)}</span>
        <span className="text-slate-600">· Version {version.version}</span>
      </p>
      <p className="mt-1.5 break-words text-slate-700">{version.changelog}</p>
    </section>
  )
}
