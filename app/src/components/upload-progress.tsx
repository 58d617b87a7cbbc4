// An upload's progress: a bar (role=progressbar, its value the percent sent),
// bytes sent of the total, percent and time left, a note while the browser
// is offline (the upload waits and resumes), and Cancel.
import { useEffect, useState } from 'react'
import { WifiOff, X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { percentOf, progressText, type ProgressState } from '@/lib/upload-progress'

function useOnline(): boolean {
  const [online, setOnline] = useState(() => (typeof navigator === 'undefined' ? true : navigator.onLine !== false))
  useEffect(() => {
    const on = () => setOnline(true)
    const off = () => setOnline(false)
    window.addEventListener('online', on)
    window.addEventListener('offline', off)
    return () => {
      window.removeEventListener('online', on)
      window.removeEventListener('offline', off)
    }
  }, [])
  return online
}

export function UploadProgress({
  label,
  progress,
  onCancel,
}: {
  /** What is being uploaded, e.g. 'Uploading planner.zip'. */
  label: string
  progress: ProgressState
  onCancel?: () => void
}) {
  const online = useOnline()
  const percent = percentOf(progress)
  const text = progressText(progress)
  return (
    <div className="rounded-lg border border-slate-200 bg-slate-50 p-3" data-testid="upload-progress">
      <div className="flex items-center justify-between gap-3">
        <p id="upload-progress-label" className="min-w-0 truncate text-sm font-medium text-slate-900">
          {label}
        </p>
        {onCancel && (
          <Button variant="outline" size="sm" onClick={onCancel}>
            <X className="h-4 w-4" aria-hidden /> Cancel upload
          </Button>
        )}
      </div>
      <div
        role="progressbar"
        aria-labelledby="upload-progress-label"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
        className="mt-2 h-2 w-full overflow-hidden rounded-full bg-slate-200"
      >
        <div className="h-full rounded-full bg-brand-600 transition-[width] duration-300 motion-reduce:transition-none" style={{ width: `${percent}%` }} />
      </div>
      <p className="mt-1.5 text-xs text-slate-700" data-testid="upload-progress-text">
        {text}
      </p>
      {!online && (
        <p role="status" className="mt-1.5 flex items-center gap-1.5 text-xs font-medium text-amber-800">
          <WifiOff className="h-3.5 w-3.5" aria-hidden /> Connection lost. The upload continues when you are back online.
        </p>
      )}
    </div>
  )
}
