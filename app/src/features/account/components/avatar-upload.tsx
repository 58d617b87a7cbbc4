// The owner's avatar with its change button on their public profile (the
// profile route puts it in the profile header).
import { Camera, Loader2 } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { useAvatarChooser } from '../hooks/use-avatar-chooser'
import { IMAGE_ACCEPT } from '@/lib/file-types'

export function AvatarUpload({ userId, url, name }: { userId: string; url: string | null; name: string }) {
  const { input, choose, busy } = useAvatarChooser(userId, url)
  return (
    <div className="relative">
      <Avatar url={url} name={name} size="xl" className="ring-4" />
      <button
        type="button"
        onClick={() => input.current?.click()}
        disabled={busy}
        aria-label="Change avatar"
        className="absolute bottom-1 right-1 flex h-9 w-9 items-center justify-center rounded-full bg-brand-600 text-white shadow-md hover:bg-brand-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2"
      >
        {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Camera className="h-4 w-4" aria-hidden />}
      </button>
      <input
        ref={input}
        type="file"
        accept={IMAGE_ACCEPT}
        className="sr-only"
        tabIndex={-1}
        aria-label="Avatar image file"
        data-testid="avatar-input"
        onChange={(e) => void choose(e.target.files?.[0])}
      />
    </div>
  )
}
