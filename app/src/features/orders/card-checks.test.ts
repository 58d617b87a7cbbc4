import { describe, expect, it } from 'vitest'
import { cardNumberError, cvcError, expiryError, formatCardNumber, formatExpiry } from './card-checks'
import { simulatedPaymentId } from './api/confirm-simulated-payment'
import { formatAmount, secureDownloadPath } from './format'

describe('card checks', () => {
  it('formats as typed', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242')
    expect(formatCardNumber('4242-42ab')).toBe('4242 42')
    expect(formatExpiry('1239')).toBe('12/39')
    expect(formatExpiry('1')).toBe('1')
  })

  it('checks card number, expiry and CVC', () => {
    expect(cardNumberError('4242 4242 4242 4242')).toBeNull()
    expect(cardNumberError('4242')).toBe('Enter a valid card number.')
    const now = new Date(2026, 5, 15)
    expect(expiryError('06/26', now)).toBeNull()
    expect(expiryError('05/26', now)).toBe('This card has expired.')
    expect(expiryError('13/30', now)).toBe('Enter the expiry date as MM/YY.')
    expect(expiryError('1/30', now)).toBe('Enter the expiry date as MM/YY.')
    expect(cvcError('123')).toBeNull()
    expect(cvcError('1234')).toBeNull()
    expect(cvcError('12')).toBe('Enter a valid CVC.')
  })
})

describe('order helpers', () => {
  it("finds the simulated payment's id", () => {
    expect(simulatedPaymentId({ clientSecret: 'pi_sim_a_secret_b', confirmUrl: 'http://x/api/simulated-payments/pi_sim_a?client_secret=s' })).toBe('pi_sim_a')
    expect(simulatedPaymentId({ clientSecret: 'pi_sim_a_secret_b' })).toBe('pi_sim_a')
  })

  it('formats amounts and the secure download path', () => {
    expect(formatAmount(1900, 'usd')).toBe('$19.00')
    expect(formatAmount(950, 'eur')).toBe('€9.50')
    expect(secureDownloadPath('o-1', 'a b')).toBe('/download-secure/o-1?token=a%20b')
  })
})
