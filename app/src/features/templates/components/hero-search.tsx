import { useState, type FormEvent } from 'react'
import { useNavigate } from 'react-router'
import { Search } from 'lucide-react'
import { Button } from '@/components/ui/button'

/** Goes to /discover?search={text}, only when the text is non-blank after trimming. */
export function HeroSearch() {
  const [text, setText] = useState('')
  const navigate = useNavigate()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const search = text.trim()
    if (!search) return
    navigate(`/discover?search=${encodeURIComponent(search)}`)
  }
  return (
    <form role="search" onSubmit={submit} className="mx-auto flex w-full max-w-xl gap-2 rounded-2xl bg-white p-2 shadow-lg ring-1 ring-slate-200">
      <label htmlFor="hero-search" className="sr-only">
        Search templates
      </label>
      <div className="relative flex-1">
        <Search className="pointer-events-none absolute left-3 top-1/2 h-5 w-5 -translate-y-1/2 text-slate-400" aria-hidden />
        <input
          id="hero-search"
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Search planners, CRMs, habit trackers..."
          className="h-12 w-full rounded-xl bg-transparent pl-10 pr-3 text-slate-900 placeholder:text-slate-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
        />
      </div>
      <Button type="submit" size="lg">
        Search
      </Button>
    </form>
  )
}
