// A step of the bootstrap could not complete; `message` says what to do next.
export class BootstrapError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'BootstrapError';
  }
}
