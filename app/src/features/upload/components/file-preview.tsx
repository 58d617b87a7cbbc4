// Thumbnails of chosen (not yet stored) and stored images.
import { useEffect, useState } from 'react'
import type { FileSlot } from '../form'

/** An object URL for a chosen file, revoked when it is no longer shown. */
export function useSlotUrl(slot: FileSlot | null): string | null {
  const file = slot?.kind === 'new' ? slot.file : null
  const [objectUrl, setObjectUrl] = useState<string | null>(null)
  useEffect(() => {
    // jsdom (tests) has no object URLs: such files show without a thumbnail.
    if (!file || typeof URL.createObjectURL !== 'function') {
      setObjectUrl(null)
      return
    }
    const url = URL.createObjectURL(file)
    setObjectUrl(url)
    return () => URL.revokeObjectURL(url)
  }, [file])
  if (!slot) return null
  return slot.kind === 'stored' ? slot.url : objectUrl
}

export function SlotImage({ slot, alt, className }: { slot: FileSlot; alt: string; className?: string }) {
  const url = useSlotUrl(slot)
  if (!url)
    return (
      <div role="img" aria-label={alt} className={`flex items-center justify-center bg-slate-100 p-2 text-center text-xs text-slate-600 ${className ?? ''}`}>
        {slot.kind === 'new' ? slot.file.name : ''}
      </div>
    )
  return <img src={url} alt={alt} className={`object-cover ${className ?? ''}`} />
}
