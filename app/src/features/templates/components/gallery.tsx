// The image gallery: a main image with a magnifier lens on hover (200 px,
// 10x; not under prefers-reduced-motion) and thumbnails below it (4 columns
// when there are several).
import { useState, type MouseEvent } from 'react'
import { ImageIcon } from 'lucide-react'
import { cn } from '@/lib/format'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { GALLERY_RENDITION, THUMB_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { REDUCED_MOTION_QUERY, useMediaQuery } from '@/lib/use-media-query'

export const LENS_SIZE_PX = 200
export const ZOOM = 10

interface Lens {
  x: number
  y: number
  width: number
  height: number
}

/** Where the lens sits and which part of the 10x image it shows, for a cursor at (x, y) over a w x h image. */
export function lensGeometry(x: number, y: number, width: number, height: number) {
  return {
    left: x - LENS_SIZE_PX / 2,
    top: y - LENS_SIZE_PX / 2,
    backgroundSize: `${width * ZOOM}px ${height * ZOOM}px`,
    backgroundPosition: `${-(x * ZOOM - LENS_SIZE_PX / 2)}px ${-(y * ZOOM - LENS_SIZE_PX / 2)}px`,
  }
}

export function galleryImages(main: string | null, more: string[] | null | undefined): string[] {
  return [...new Set([main, ...(more ?? [])].filter((u): u is string => !!u))]
}

export function Gallery({ images, title }: { images: string[]; title: string }) {
  const [index, setIndex] = useState(0)
  const [lens, setLens] = useState<Lens | null>(null)
  const current = images[Math.min(index, images.length - 1)]
  // A lens that follows the pointer is motion: none under prefers-reduced-motion (issue 24).
  const still = useMediaQuery(REDUCED_MOTION_QUERY)

  const move = (e: MouseEvent<HTMLDivElement>) => {
    if (still) return setLens(null)
    const box = e.currentTarget.getBoundingClientRect()
    const x = e.clientX - box.left
    const y = e.clientY - box.top
    if (x < 0 || y < 0 || x > box.width || y > box.height) return setLens(null)
    setLens({ x, y, width: box.width, height: box.height })
  }

  if (!current) {
    return (
      <div className="flex aspect-[16/10] items-center justify-center rounded-2xl border border-slate-200 bg-slate-100 text-slate-400">
        <ImageIcon className="h-12 w-12" aria-hidden />
        <span className="sr-only">No preview image</span>
      </div>
    )
  }
  const geometry = lens && lensGeometry(lens.x, lens.y, lens.width, lens.height)
  return (
    <div>
      <div
        className="relative cursor-crosshair overflow-hidden rounded-2xl border border-slate-200 bg-white"
        onMouseMove={move}
        onMouseLeave={() => setLens(null)}
        data-testid="gallery-main"
      >
        {/* a sized rendition; the magnifier below zooms into the full upload */}
        <img
          src={renditionUrl(current, TEMPLATES_BUCKET, GALLERY_RENDITION) ?? current}
          alt={`${title} preview ${index + 1}`}
          {...imageSize(GALLERY_RENDITION)}
          // the page's largest image: asked for first, before the thumbnails and the cards below
          fetchPriority="high"
          className="block aspect-[16/10] w-full object-cover"
        />
        {geometry && (
          <div
            aria-hidden
            data-testid="magnifier-lens"
            className="pointer-events-none absolute rounded-full border-2 border-white shadow-xl ring-1 ring-slate-900/10"
            style={{
              width: LENS_SIZE_PX,
              height: LENS_SIZE_PX,
              left: geometry.left,
              top: geometry.top,
              backgroundImage: `url("${current}")`,
              backgroundRepeat: 'no-repeat',
              backgroundSize: geometry.backgroundSize,
              backgroundPosition: geometry.backgroundPosition,
            }}
          />
        )}
      </div>
      {images.length > 1 && (
        <ul className="mt-3 grid grid-cols-4 gap-3" aria-label="Preview images">
          {images.map((src, i) => (
            <li key={src}>
              <button
                type="button"
                onClick={() => setIndex(i)}
                aria-label={`Show image ${i + 1}`}
                aria-pressed={i === index}
                className={cn(
                  'block w-full overflow-hidden rounded-lg border-2 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
                  i === index ? 'border-brand-600' : 'border-transparent opacity-80 hover:opacity-100',
                )}
              >
                <img
                  src={renditionUrl(src, TEMPLATES_BUCKET, THUMB_RENDITION) ?? src}
                  alt=""
                  {...imageSize(THUMB_RENDITION)}
                  loading="lazy"
                  decoding="async"
                  className="aspect-[16/10] w-full object-cover"
                />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
