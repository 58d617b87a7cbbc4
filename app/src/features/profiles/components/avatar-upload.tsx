import { useRef } from 'react'
import { Camera, Loader2 } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { toastError, toastWarning } from '@/lib/toast'
import { useUpdateAvatar } from '../api/update-avatar'
import { avatarDimensionWarnings, avatarFileError, readImageSize, resizeForAvatar } from '../image-checks'
import { AVATAR_MAX_DIMENSION_PX } from '@/config/constants'

export function AvatarUpload({ userId, url, name }: { userId: string; url: string | null; name: string }) {
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
      for (const warning of avatarDimensionWarnings(size.width, size.height)) toastWarning('Warning', warning)
      if (size.width > AVATAR_MAX_DIMENSION_PX || size.height > AVATAR_MAX_DIMENSION_PX) upload = await resizeForAvatar(file)
    }
    update.mutate({ file: upload, previousUrl: url })
  }
  return (
    <div className="relative">
      <Avatar url={url} name={name} size="xl" className="ring-4" />
      <button
        type="button"
        onClick={() => input.current?.click()}
        disabled={update.isPending}
        aria-label="Change avatar"
        className="absolute bottom-1 right-1 flex h-9 w-9 items-center justify-center rounded-full bg-brand-600 text-white shadow-md hover:bg-brand-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2"
      >
        {update.isPending ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Camera className="h-4 w-4" aria-hidden />}
      </button>
      <input
        ref={input}
        type="file"
        accept="image/*"
        className="sr-only"
        tabIndex={-1}
        aria-label="Avatar image file"
        data-testid="avatar-input"
        onChange={(e) => void choose(e.target.files?.[0])}
      />
    </div>
  )
}
