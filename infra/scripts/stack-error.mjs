// The stack could not start (or could not keep running); `message` names the next step.
export class StackError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'StackError';
  }
}
