// The avatar checks of spec section 5: an image, under 5 MB; warnings (not
// errors) when either side is under 400 px or over 1000 px.
import { AVATAR_MAX_BYTES, AVATAR_MAX_DIMENSION_PX, AVATAR_MIN_DIMENSION_PX } from '@/config/constants'
import { isAcceptedImage } from '@/lib/file-types'

/** The recommended size as the profile page words it (the dashboard variant says 400x400px). */
export type RecommendedSize = '500x500px' | '400x400px'

export function avatarFileError(file: File): string | null {
  // Raster images only: the avatars bucket refuses SVG (it can carry script).
  if (!isAcceptedImage(file)) return 'Please upload an image file'
  if (file.size >= AVATAR_MAX_BYTES) return 'File size must be less than 5MB'
  return null
}

export function avatarDimensionWarnings(width: number, height: number, recommended: RecommendedSize = '500x500px'): string[] {
  const warnings: string[] = []
  if (width < AVATAR_MIN_DIMENSION_PX || height < AVATAR_MIN_DIMENSION_PX)
    warnings.push(`Image is smaller than recommended size (${recommended}). This may affect quality.`)
  if (width > AVATAR_MAX_DIMENSION_PX || height > AVATAR_MAX_DIMENSION_PX)
    warnings.push(`Image is larger than recommended size (${recommended}). It will be resized.`)
  return warnings
}

/** The pixel size of an image file, or null when the browser cannot decode it. */
export async function readImageSize(file: File): Promise<{ width: number; height: number } | null> {
  try {
    if (typeof createImageBitmap === 'function') {
      const bitmap = await createImageBitmap(file)
      const size = { width: bitmap.width, height: bitmap.height }
      bitmap.close?.()
      return size
    }
    return await new Promise((resolve) => {
      const url = URL.createObjectURL(file)
      const img = new Image()
      img.onload = () => {
        URL.revokeObjectURL(url)
        resolve({ width: img.naturalWidth, height: img.naturalHeight })
      }
      img.onerror = () => {
        URL.revokeObjectURL(url)
        resolve(null)
      }
      img.src = url
    })
  } catch {
    return null
  }
}

/** Scales an image down so neither side exceeds the maximum; the original when it cannot. */
export async function resizeForAvatar(file: File, max = AVATAR_MAX_DIMENSION_PX): Promise<File> {
  try {
    if (typeof createImageBitmap !== 'function' || typeof document === 'undefined') return file
    const bitmap = await createImageBitmap(file)
    const scale = Math.min(1, max / Math.max(bitmap.width, bitmap.height))
    if (scale === 1) return file
    const canvas = document.createElement('canvas')
    canvas.width = Math.round(bitmap.width * scale)
    canvas.height = Math.round(bitmap.height * scale)
    const context = canvas.getContext('2d')
    if (!context) return file
    context.drawImage(bitmap, 0, 0, canvas.width, canvas.height)
    const type = file.type === 'image/png' ? 'image/png' : 'image/jpeg'
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, 0.9))
    if (!blob) return file
    return new File([blob], file.name.replace(/\.[^.]+$/, type === 'image/png' ? '.png' : '.jpg'), { type })
  } catch {
    return file
  }
}
