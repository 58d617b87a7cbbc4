import { cn } from '@/lib/format'

export function CodeBlock({ children, className, label }: { children: string; className?: string; label?: string }) {
  return (
    <pre aria-label={label} className={cn('max-w-full overflow-x-auto rounded-lg bg-slate-900 px-3 py-2 font-mono text-xs leading-relaxed text-slate-100', className)}>
      <code>{children}</code>
    </pre>
  )
}
