// Tags as the spec has them (section 5): added with the Add button or Enter;
// trimmed, non-empty, no duplicates; each removable. The upload and the
// edit-template screens share it.
import { useState, type KeyboardEvent } from 'react'
import { X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Input, Label } from '@/components/ui/field'

/** Adds a tag: trimmed, non-empty, no duplicates. Returns the same list when nothing is added. */
export function addTag(tags: string[], input: string): string[] {
  const tag = input.trim()
  if (!tag || tags.includes(tag)) return tags
  return [...tags, tag]
}

export function TagInput({ id, tags, onChange }: { id: string; tags: string[]; onChange: (tags: string[]) => void }) {
  const [text, setText] = useState('')
  const [duplicate, setDuplicate] = useState(false)

  const add = () => {
    const next = addTag(tags, text)
    if (next !== tags) {
      onChange(next)
      setText('')
      setDuplicate(false)
    } else {
      // Blank input: nothing to say; an existing tag: say so and keep the text.
      setDuplicate(text.trim() !== '')
    }
  }
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault()
      add()
    }
  }

  return (
    <div>
      <Label htmlFor={id}>Tags</Label>
      <div className="flex gap-2">
        <Input
          id={id}
          value={text}
          onChange={(e) => {
            setText(e.target.value)
            setDuplicate(false)
          }}
          onKeyDown={onKeyDown}
          placeholder="e.g. planner"
          aria-describedby={`${id}-hint`}
        />
        <Button variant="outline" onClick={add} aria-label="Add tag">
          Add
        </Button>
      </div>
      <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600" aria-live="polite">
        {duplicate ? 'That tag is already added.' : 'Press Enter or Add to add a tag.'}
      </p>
      {tags.length > 0 && (
        <ul aria-label="Tags added" className="mt-3 flex flex-wrap gap-2">
          {tags.map((tag) => (
            <li key={tag} className="inline-flex items-center gap-1 rounded-full bg-brand-50 py-1 pl-3 pr-1 text-sm text-brand-800 ring-1 ring-inset ring-brand-200">
              {tag}
              <button
                type="button"
                aria-label={`Remove tag ${tag}`}
                onClick={() => onChange(tags.filter((t) => t !== tag))}
                className="rounded-full p-0.5 hover:bg-brand-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
              >
                <X className="h-3.5 w-3.5" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
