// The image gallery at the top of a template page, across the content width
// (issue 44, item 9): a large main image with thumbnails below it (4 columns
// when there are several).
// - Desktop: the main image with a magnifier lens on hover (200 px, 10x; not
//   under prefers-reduced-motion). The image is shown whole (contained) in a
//   16:10 box as wide as the page's content, so a preview of another shape
//   is never cropped; the lens follows the picture, not the bars around it.
// - Phones: the images side by side in a strip that snaps, swiped with a
//   finger (or scrolled with the keys); the thumbnails move the strip.
// Every copy of the first image asks for the same rendition URL, the one the
// server preloads in the page's head (crates/marketplace/src/pages/preload.rs).
import { useRef, useState, type MouseEvent, type RefObject, type UIEvent } from 'react'
import { ImageIcon } from 'lucide-react'
import { cn } from '@/lib/format'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { GALLERY_RENDITION, THUMB_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { PHONE_QUERY, REDUCED_MOTION_QUERY, scrollMotion, useMediaQuery } from '@/lib/use-media-query'

export const LENS_SIZE_PX = 200
export const ZOOM = 10

interface Lens {
  /** Where the picture sits in the box (its letterbox offsets). */
  offsetX: number
  offsetY: number
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

/**
 * The rectangle a picture of natural size nw x nh fills when contained in a
 * box of bw x bh (object-fit: contain, centred). An unknown natural size
 * (not loaded yet) fills the box.
 */
export function containedRect(bw: number, bh: number, nw: number, nh: number) {
  if (!(nw > 0 && nh > 0 && bw > 0 && bh > 0)) return { x: 0, y: 0, width: bw, height: bh }
  const scale = Math.min(bw / nw, bh / nh)
  const width = nw * scale
  const height = nh * scale
  return { x: (bw - width) / 2, y: (bh - height) / 2, width, height }
}

export function galleryImages(main: string | null, more: string[] | null | undefined): string[] {
  return [...new Set([main, ...(more ?? [])].filter((u): u is string => !!u))]
}

const mainSrc = (src: string) => renditionUrl(src, TEMPLATES_BUCKET, GALLERY_RENDITION) ?? src

function Magnified({ src, alt }: { src: string; alt: string }) {
  const [lens, setLens] = useState<Lens | null>(null)
  const img = useRef<HTMLImageElement>(null)
  // A lens that follows the pointer is motion: none under prefers-reduced-motion (issue 24).
  const still = useMediaQuery(REDUCED_MOTION_QUERY)

  const move = (e: MouseEvent<HTMLDivElement>) => {
    if (still) return setLens(null)
    const box = e.currentTarget.getBoundingClientRect()
    const picture = containedRect(box.width, box.height, img.current?.naturalWidth ?? 0, img.current?.naturalHeight ?? 0)
    const x = e.clientX - box.left - picture.x
    const y = e.clientY - box.top - picture.y
    if (x < 0 || y < 0 || x > picture.width || y > picture.height) return setLens(null)
    setLens({ offsetX: picture.x, offsetY: picture.y, x, y, width: picture.width, height: picture.height })
  }
  const geometry = lens && lensGeometry(lens.x, lens.y, lens.width, lens.height)
  return (
    <div
      className="relative cursor-crosshair overflow-hidden rounded-2xl border border-slate-200 bg-slate-100"
      onMouseMove={move}
      onMouseLeave={() => setLens(null)}
      data-testid="gallery-main"
    >
      {/* a sized rendition; the magnifier below zooms into the full upload */}
      <img
        ref={img}
        src={mainSrc(src)}
        alt={alt}
        {...imageSize(GALLERY_RENDITION)}
        // the page's largest image: asked for first, before the thumbnails and the cards below
        fetchPriority="high"
        className="mx-auto block aspect-[16/10] w-full object-contain"
      />
      {geometry && lens && (
        <div
          aria-hidden
          data-testid="magnifier-lens"
          className="pointer-events-none absolute rounded-full border-2 border-white shadow-xl ring-1 ring-slate-900/10"
          style={{
            width: LENS_SIZE_PX,
            height: LENS_SIZE_PX,
            left: lens.offsetX + geometry.left,
            top: lens.offsetY + geometry.top,
            backgroundImage: `url("${src}")`,
            backgroundRepeat: 'no-repeat',
            backgroundSize: geometry.backgroundSize,
            backgroundPosition: geometry.backgroundPosition,
          }}
        />
      )}
    </div>
  )
}

/**
 * The gallery's first image before the template's row has arrived (the one
 * the server preloaded): the main image's box, without the lens or the strip.
 */
export function PreloadedImage({ src }: { src: string }) {
  return (
    <div className="overflow-hidden rounded-2xl border border-slate-200 bg-slate-100" data-testid="gallery-preloaded">
      <img
        src={src}
        alt=""
        {...imageSize(GALLERY_RENDITION)}
        fetchPriority="high"
        className="mx-auto block aspect-[16/10] w-full object-contain"
      />
    </div>
  )
}

/** Phones: every image full width in a strip that snaps; `index` follows the swipe. */
function SwipeStrip({
  images,
  title,
  index,
  onIndex,
  strip,
}: {
  images: string[]
  title: string
  index: number
  onIndex: (i: number) => void
  strip: RefObject<HTMLUListElement | null>
}) {
  const scrolled = (e: UIEvent<HTMLUListElement>) => {
    const el = e.currentTarget
    if (el.clientWidth > 0) onIndex(Math.min(images.length - 1, Math.max(0, Math.round(el.scrollLeft / el.clientWidth))))
  }
  return (
    <div className="relative" data-testid="gallery-main">
      <ul
        ref={strip}
        onScroll={scrolled}
        // A scrolling region is reached and moved with the keyboard too (axe: scrollable-region-focusable).
        tabIndex={images.length > 1 ? 0 : undefined}
        aria-label={images.length > 1 ? `${title} previews, swipe for more` : undefined}
        className="flex snap-x snap-mandatory overflow-x-auto overscroll-x-contain rounded-2xl border border-slate-200 bg-slate-100 [scrollbar-width:none] focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 [&::-webkit-scrollbar]:hidden"
      >
        {images.map((src, i) => (
          <li key={src} className="w-full shrink-0 snap-center snap-always">
            <img
              src={mainSrc(src)}
              alt={`${title} preview ${i + 1}`}
              {...imageSize(GALLERY_RENDITION)}
              {...(i === 0 ? { fetchPriority: 'high' as const } : { loading: 'lazy' as const, decoding: 'async' as const })}
              className="block aspect-[16/10] w-full object-contain"
            />
          </li>
        ))}
      </ul>
      {images.length > 1 && (
        <span
          aria-hidden
          data-testid="gallery-counter"
          className="pointer-events-none absolute bottom-3 right-3 rounded-full bg-slate-900/70 px-2.5 py-1 text-xs font-medium text-white"
        >
          {index + 1} / {images.length}
        </span>
      )}
    </div>
  )
}

export function Gallery({ images, title }: { images: string[]; title: string }) {
  const [index, setIndex] = useState(0)
  const phone = useMediaQuery(PHONE_QUERY)
  const strip = useRef<HTMLUListElement>(null)
  const shown = Math.min(index, images.length - 1)
  const current = images[shown]

  if (!current) {
    return (
      <div
        className="flex aspect-[16/10] w-full items-center justify-center rounded-2xl border border-slate-200 bg-slate-100 text-slate-400"
        data-testid="gallery"
      >
        <ImageIcon className="h-12 w-12" aria-hidden />
        <span className="sr-only">No preview image</span>
      </div>
    )
  }
  const show = (i: number) => {
    setIndex(i)
    const el = strip.current
    if (phone && el) el.scrollTo({ left: i * el.clientWidth, behavior: scrollMotion() })
  }
  return (
    <div data-testid="gallery">
      {phone ? (
        <SwipeStrip images={images} title={title} index={shown} onIndex={setIndex} strip={strip} />
      ) : (
        <Magnified key={current} src={current} alt={`${title} preview ${shown + 1}`} />
      )}
      {images.length > 1 && (
        <ul className="mx-auto mt-3 grid max-w-3xl grid-cols-4 gap-3" aria-label="Preview images">
          {images.map((src, i) => (
            <li key={src}>
              <button
                type="button"
                onClick={() => show(i)}
                aria-label={`Show image ${i + 1}`}
                aria-pressed={i === shown}
                className={cn(
                  'block w-full overflow-hidden rounded-lg border-2 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
                  i === shown ? 'border-brand-600' : 'border-transparent opacity-80 hover:opacity-100',
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
