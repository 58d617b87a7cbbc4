import { useState } from 'react'
import { cn } from '@/lib/format'
import { AVATAR_RENDITION, LARGE_AVATAR_RENDITION, renditionUrl } from '@/lib/image-url'
import { AVATAR_BUCKET } from '@/config/constants'

const sizes = { sm: 'h-8 w-8 text-xs', md: 'h-12 w-12 text-sm', lg: 'h-20 w-20 text-xl', xl: 'h-28 w-28 text-3xl' }
/** The same sizes in CSS pixels: the img's width and height. */
const pixels = { sm: 32, md: 48, lg: 80, xl: 112 }

export function Avatar({
  url,
  name,
  size = 'md',
  className,
}: {
  url: string | null | undefined
  name: string
  size?: keyof typeof sizes
  className?: string
}) {
  const [failed, setFailed] = useState(false)
  // a 96 or 224 pixel rendition, not the uploaded photo
  const src = renditionUrl(url, AVATAR_BUCKET, size === 'lg' || size === 'xl' ? LARGE_AVATAR_RENDITION : AVATAR_RENDITION)
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]?.toUpperCase())
    .join('')
  return (
    <span
      className={cn(
        'inline-flex shrink-0 items-center justify-center overflow-hidden rounded-full bg-gradient-to-br from-brand-100 to-brand-200 font-semibold text-brand-800 ring-2 ring-white',
        sizes[size],
        className,
      )}
    >
      {src && !failed ? (
        <img
          src={src}
          alt={`${name}'s avatar`}
          width={pixels[size]}
          height={pixels[size]}
          loading="lazy"
          decoding="async"
          className="h-full w-full object-cover"
          onError={() => setFailed(true)}
        />
      ) : (
        // The initials stand in for a photo: a picture, drawn by CSS, so they are not
        // taken for a text label of a control the avatar sits in (the account menu's button).
        <span aria-hidden data-initials={initials || '?'} className="before:content-[attr(data-initials)]" />
      )}
    </span>
  )
}
