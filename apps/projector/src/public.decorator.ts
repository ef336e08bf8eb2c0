import { SetMetadata } from '@nestjs/common';
import { IS_PUBLIC } from './projector.constants.js';

/** Marks a route as reachable without the bearer token. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
