import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import './index.css'
import { initSupabase } from '@/lib/supabase'
import { showStartUpFailure } from './start-up-failure'

// The client (which reads the anon key from the server) and the app's code load side by side.
Promise.all([initSupabase(), import('./app/app')])
  .then(([, { App }]) => {
    createRoot(document.getElementById('root')!).render(
      <StrictMode>
        <App />
      </StrictMode>,
    )
  })
  .catch(showStartUpFailure)
