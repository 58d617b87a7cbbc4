// Profile Picture: the avatar rules of spec section 5 with the dashboard
// variant's 400x400px texts. Errors stop the upload; size warnings do not
// (an oversized image is scaled down first).
import { Loader2, Upload } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { useAvatarChooser } from '../hooks/use-avatar-chooser'
import { DASHBOARD_AVATAR_RECOMMENDED } from '../constants'
import { Card } from '@/components/ui/card'
import { IMAGE_ACCEPT } from '@/lib/file-types'

export function ProfilePictureSection({ userId, url, name }: { userId: string; url: string | null; name: string }) {
  const { input, choose, busy } = useAvatarChooser(userId, url, DASHBOARD_AVATAR_RECOMMENDED)
  return (
    <Card title="Profile Picture" description="Shown on your profile, your templates and in the header.">
      <div className="flex flex-col items-start gap-4 sm:flex-row sm:items-center">
        <Avatar url={url} name={name} size="xl" className="ring-4 ring-slate-100" />
        <div className="space-y-2">
          <Button variant="outline" onClick={() => input.current?.click()} disabled={busy}>
            {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Upload className="h-4 w-4" aria-hidden />}
            {busy ? 'Uploading...' : 'Upload new picture'}
          </Button>
          <p className="text-xs text-slate-600">
            An image under 5MB. Recommended size: {DASHBOARD_AVATAR_RECOMMENDED}.
          </p>
          <input
            ref={input}
            type="file"
            accept={IMAGE_ACCEPT}
            className="sr-only"
            tabIndex={-1}
            aria-label="Profile picture file"
            data-testid="profile-picture-input"
            onChange={(e) => void choose(e.target.files?.[0])}
          />
        </div>
      </div>
    </Card>
  )
}
