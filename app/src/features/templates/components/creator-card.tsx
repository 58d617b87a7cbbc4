// The creator on a template page (issue 44, item 7): avatar, name and
// @username linking to their profile, a Follow button (the profiles
// feature's, handed in by the route: features do not import each other),
// and up to four of their other published templates.
import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { ImageIcon } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { formatPrice } from '@/lib/format'
import { CARD_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { personName, profilePath, type ProfileSummary } from '@/lib/types'
import { useCreatorTemplates } from '../api/get-creator-templates'

function OtherTemplates({ creator, templateId, name }: { creator: ProfileSummary; templateId: string; name: string }) {
  const { data } = useCreatorTemplates(creator.id, templateId)
  if (!data || data.length === 0) return null
  return (
    <div className="mt-6 border-t border-slate-100 pt-5">
      <h3 className="text-sm font-semibold text-slate-900">More from {name}</h3>
      <ul className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4" aria-label={`More templates by ${name}`} data-testid="creator-templates">
        {data.map((t) => (
          <li key={t.id}>
            <Link
              to={`/template/${t.id}`}
              className="group block overflow-hidden rounded-xl border border-slate-200 bg-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
            >
              <span className="block aspect-[16/10] overflow-hidden bg-slate-100">
                {t.preview_image_url ? (
                  <img
                    src={renditionUrl(t.preview_image_url, TEMPLATES_BUCKET, CARD_RENDITION) ?? undefined}
                    alt=""
                    {...imageSize(CARD_RENDITION)}
                    loading="lazy"
                    decoding="async"
                    className="h-full w-full object-cover transition duration-300 group-hover:scale-[1.03]"
                  />
                ) : (
                  <span className="flex h-full items-center justify-center text-slate-400">
                    <ImageIcon className="h-6 w-6" aria-hidden />
                  </span>
                )}
              </span>
              <span className="block p-2.5">
                <span className="block truncate text-sm font-medium text-slate-900 group-hover:text-brand-700">{t.title}</span>
                <span className="block text-xs text-slate-600">{formatPrice(t.price)}</span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  )
}

export function CreatorCard({
  creator,
  templateId,
  follow,
}: {
  creator: ProfileSummary
  templateId: string
  /** The Follow button, or nothing (the creator's own template, or none handed in). */
  follow?: ReactNode
}) {
  const name = personName(creator)
  const path = profilePath(creator)
  return (
    <section aria-labelledby="creator-heading" className="rounded-2xl border border-slate-200 bg-white p-6" data-testid="creator-card">
      <h2 id="creator-heading" className="sr-only">
        About the creator
      </h2>
      <div className="flex flex-wrap items-center gap-4">
        <Link to={path} className="shrink-0 rounded-full" tabIndex={-1} aria-hidden>
          <Avatar url={creator.avatar_url} name={name} size="lg" />
        </Link>
        <div className="min-w-0 flex-1">
          <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Created by</p>
          <Link to={path} className="block truncate rounded text-lg font-semibold text-slate-900 hover:text-brand-700" data-testid="creator-link">
            {name}
          </Link>
          {creator.username && <p className="truncate text-sm text-slate-600">@{creator.username}</p>}
        </div>
        <div className="flex shrink-0 items-center gap-2">
          {follow}
          <Link to={path} className="rounded-lg px-3 py-2 text-sm font-medium text-brand-700 hover:bg-brand-50">
            View profile
          </Link>
        </div>
      </div>
      <OtherTemplates creator={creator} templateId={templateId} name={name} />
    </section>
  )
}
