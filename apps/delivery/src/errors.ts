/** The delivery service's configuration cannot work as given. */
export class DeliveryConfigError extends Error {
  override readonly name = 'DeliveryConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A request could not be finished now (other writers kept winning); nothing false was written. */
export class DeliveryBusyError extends Error {
  override readonly name = 'DeliveryBusyError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
