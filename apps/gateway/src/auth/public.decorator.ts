import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'trawl:isPublic';

/** Marks a route that needs no API key (health, docs). Every operation of the API needs one. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
