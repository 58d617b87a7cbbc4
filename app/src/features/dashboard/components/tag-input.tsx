// Tags as the spec has them (section 5): trimmed, non-empty, no duplicates;
// added by the Add button or Enter; each removable.
import { useState, type KeyboardEvent } from 'react'
import { X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/field'

/** The tags with `text` added, or null when it adds nothing (blank or already there). */
export function addTag(tags: string[], text: string): string[] | null {
  const tag = text.trim()
  if (!tag || tags.includes(tag)) return null
  return [...tags, tag]
}

export function TagInput({ id, label, tags, onChange }: { id: string; label: string; tags: string[]; onChange: (tags: string[]) => void }) {
  const [text, setText] = useState('')
  const add = () => {
    const next = addTag(tags, text)
    if (next) onChange(next)
    setText('')
  }
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault()
      add()
    }
  }
  return (
    <div>
      <label htmlFor={id} className="mb-1.5 block text-sm font-medium text-slate-800">
        {label}
      </label>
      <div className="flex gap-2">
        <Input id={id} value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onKeyDown} placeholder="Add a tag" />
        <Button variant="outline" onClick={add} aria-label={`Add ${label.toLowerCase().replace(/s$/, '')}`}>
          Add
        </Button>
      </div>
      {tags.length > 0 && (
        <ul className="mt-2 flex flex-wrap gap-1.5" aria-label={`Current ${label.toLowerCase()}`}>
          {tags.map((tag) => (
            <li key={tag} className="inline-flex items-center gap-1 rounded-full bg-slate-100 py-0.5 pl-2.5 pr-1 text-xs font-medium text-slate-700 ring-1 ring-inset ring-slate-200">
              {tag}
              <button
                type="button"
                onClick={() => onChange(tags.filter((t) => t !== tag))}
                aria-label={`Remove tag ${tag}`}
                className="inline-flex h-5 w-5 items-center justify-center rounded-full hover:bg-slate-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
              >
                <X className="h-3 w-3" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
