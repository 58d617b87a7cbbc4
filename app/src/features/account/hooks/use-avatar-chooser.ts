// Choosing a new avatar (spec section 5): not an image or too big stops with
// an error; a size outside the recommended range warns, and an oversized image
// is scaled down before the upload. `recommended` is the size the warnings
// name (the profile page and the dashboard word it differently).
import { useRef } from 'react'
import { toastError, toastWarning } from '@/lib/toast'
import { AVATAR_MAX_DIMENSION_PX } from '@/config/constants'
import { useUpdateAvatar } from '../api/update-avatar'
import { avatarDimensionWarnings, avatarFileError, readImageSize, resizeForAvatar, type RecommendedSize } from '../image-checks'

export function useAvatarChooser(userId: string, url: string | null, recommended?: RecommendedSize) {
  const input = useRef<HTMLInputElement>(null)
  const update = useUpdateAvatar(userId)
  const choose = async (file: File | undefined) => {
    if (input.current) input.current.value = ''
    if (!file) return
    const error = avatarFileError(file)
    if (error) {
      toastError(error)
      return
    }
    const size = await readImageSize(file)
    let upload = file
    if (size) {
      for (const warning of avatarDimensionWarnings(size.width, size.height, recommended)) toastWarning('Warning', warning)
      if (size.width > AVATAR_MAX_DIMENSION_PX || size.height > AVATAR_MAX_DIMENSION_PX) upload = await resizeForAvatar(file)
    }
    update.mutate({ file: upload, previousUrl: url })
  }
  return { input, choose, busy: update.isPending }
}
