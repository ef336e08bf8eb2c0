/** Errors the pure core throws. They signal a caller bug, never a remote fact. */
export const ContractErrorCode = {
  invalid_argument: 'invalid_argument',
} as const;
export type ContractErrorCode = (typeof ContractErrorCode)[keyof typeof ContractErrorCode];

export class ContractInputError extends Error {
  override readonly name = 'ContractInputError';
  readonly code: ContractErrorCode = ContractErrorCode.invalid_argument;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
