// /download-secure/{orderId}?token=: the download link of a checkout or a receipt.
import { SecureDownloadPage } from '@/features/orders/components/secure-download-page'

export default function DownloadSecureRoute() {
  return <SecureDownloadPage />
}
