import { PageHeader, SectionTitle } from '@/components/ui/page'
import { HealthCards } from './health-cards'
import { LogTail } from './log-tail'
import { Mailbox } from './mailbox'

export function LogsPage() {
  return (
    <>
      <PageHeader title="Logs & health" description="How the node is doing, what it logs, and the e-mail it would have sent." />
      <div className="space-y-6">
        <section aria-labelledby="health-title">
          <SectionTitle id="health-title">Health</SectionTitle>
          <HealthCards />
        </section>
        <section aria-labelledby="logs-title">
          <SectionTitle id="logs-title">Log tail</SectionTitle>
          <LogTail />
        </section>
        <section aria-labelledby="mailbox-title">
          <SectionTitle id="mailbox-title">Dev mailbox</SectionTitle>
          <Mailbox />
        </section>
      </div>
    </>
  )
}
