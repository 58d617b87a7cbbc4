import { useState, type FormEvent } from 'react'
import { Mail } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/field'
import { toastError, toastSuccess } from '@/lib/toast'
import { useSubscribeToNewsletter } from '../api/subscribe'

export function NewsletterForm() {
  const [name, setName] = useState('')
  const [email, setEmail] = useState('')
  const subscribe = useSubscribeToNewsletter()
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    // Both fields are required; an incomplete form silently does nothing.
    if (!name.trim() || !email.trim()) return
    try {
      await subscribe.mutateAsync({ name: name.trim(), email: email.trim() })
      toastSuccess('Success!', "You've been subscribed to our newsletter.")
      setName('')
      setEmail('')
    } catch {
      toastError('Failed to subscribe. Please try again later.')
    }
  }
  return (
    <section aria-labelledby="newsletter-heading" className="rounded-3xl bg-gradient-to-br from-brand-600 to-indigo-800 px-6 py-12 text-white sm:px-12">
      <div className="mx-auto max-w-2xl text-center">
        <Mail className="mx-auto h-10 w-10 text-brand-100" aria-hidden />
        <h2 id="newsletter-heading" className="mt-3 text-3xl font-bold">
          Stay in the loop
        </h2>
        <p className="mt-2 text-brand-100">New templates, creator stories and tips, once a week. No spam.</p>
        <form onSubmit={submit} noValidate className="mt-6 grid gap-3 sm:grid-cols-[1fr_1fr_auto]">
          <label htmlFor="newsletter-name" className="sr-only">
            Name
          </label>
          <Input id="newsletter-name" placeholder="Your name" value={name} onChange={(e) => setName(e.target.value)} className="h-12" />
          <label htmlFor="newsletter-email" className="sr-only">
            Email
          </label>
          <Input id="newsletter-email" type="email" placeholder="you@example.com" value={email} onChange={(e) => setEmail(e.target.value)} className="h-12" />
          <Button type="submit" size="lg" variant="dark" disabled={subscribe.isPending}>
            {subscribe.isPending ? 'Subscribing...' : 'Subscribe'}
          </Button>
        </form>
      </div>
    </section>
  )
}
