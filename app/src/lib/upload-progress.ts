// What an upload's progress bar says: bytes sent of the total, the percent,
// and the time left at the rate measured since the upload (re)started.
import { useCallback, useRef, useState } from 'react'
import type { TransferProgress } from '@/lib/resumable-upload'

/** `1.5 MB`, `820 KB`, `12 B` (powers of 1024, one decimal from MB). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '0 B'
  if (n < 1024) return `${Math.round(n)} B`
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`
  if (n < 1024 * 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`
  return `${(n / (1024 * 1024 * 1024)).toFixed(1)} GB`
}

/** `about 20 s`, `about 3 min`, `about 2 h`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s`
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min`
  return `about ${Math.round(seconds / 3600)} h`
}

/** A progress report with when it came, and the first one of this run (the rate's base). */
export interface ProgressState extends TransferProgress {
  /** When the first report of this run came (ms) and how much had been sent then. */
  baseAt: number
  baseSent: number
  at: number
}

export function percentOf(p: TransferProgress): number {
  if (p.total <= 0) return 0
  return Math.min(100, Math.max(0, Math.floor((p.sent / p.total) * 100)))
}

/**
 * Seconds left at the rate measured since `baseAt`, or null while it cannot
 * be told yet (under a second of measurement, or nothing sent since).
 */
export function secondsLeft(p: ProgressState): number | null {
  const elapsed = (p.at - p.baseAt) / 1000
  const moved = p.sent - p.baseSent
  if (elapsed < 1 || moved <= 0) return null
  return Math.max(0, (p.total - p.sent) / (moved / elapsed))
}

/** `2.1 MB of 8.5 MB · 25% · about 16 s left` */
export function progressText(p: ProgressState): string {
  const parts = [`${formatBytes(p.sent)} of ${formatBytes(p.total)}`, `${percentOf(p)}%`]
  const left = secondsLeft(p)
  if (p.sent >= p.total) parts.push('finishing')
  else if (left !== null) parts.push(`${formatDuration(left)} left`)
  return parts.join(' · ')
}

/** Folds a report into the state: a report that goes back (a resume from the server's offset) starts a new rate base. */
export function nextProgress(previous: ProgressState | null, report: TransferProgress, now: number): ProgressState {
  if (!previous || report.sent < previous.sent || report.total !== previous.total) {
    return { ...report, baseAt: now, baseSent: report.sent, at: now }
  }
  return { ...report, baseAt: previous.baseAt, baseSent: previous.baseSent, at: now }
}

/**
 * A transfer a form follows: `start()` gives the hooks to hand to the upload
 * (progress and an abort signal), `cancel()` aborts it, `progress` is what
 * the bar shows (null when no upload is under way).
 */
export function useTransfer() {
  const [progress, setProgress] = useState<ProgressState | null>(null)
  const controller = useRef<AbortController | null>(null)
  const start = useCallback(() => {
    controller.current?.abort()
    const c = new AbortController()
    controller.current = c
    setProgress(null)
    return {
      signal: c.signal,
      onProgress: (report: TransferProgress) => {
        if (c.signal.aborted) return
        setProgress((p) => nextProgress(p, report, Date.now()))
      },
    }
  }, [])
  const cancel = useCallback(() => controller.current?.abort(), [])
  const finish = useCallback(() => {
    controller.current = null
    setProgress(null)
  }, [])
  return { progress, start, cancel, finish }
}
