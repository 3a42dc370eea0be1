// Who may hand out a credential and whom a credential answers to (issue 30, domain/credential-permissions.ts):
// the refusals of the services that create and change API keys (oauth-clients/) and webhook endpoints
// (webhooks/), and the last changer of credentials as their views show them, with what is suspended and why.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppUser, Role } from '../../db/entities/index.ts';
import {
  type CredentialChanger,
  EVENT_SCOPE,
  subscribedEvents,
  ungrantableEvents,
  ungrantableScopes,
} from '../../domain/credential-permissions.ts';
import type { Permission } from '../../domain/permissions.ts';
import type { Scope } from '../../domain/scopes.ts';
import type { WebhookEventType } from '../../domain/vocabulary.ts';
import { permissionsOf } from '../accounts/sessions.ts';
import { Forbidden } from '../errors.ts';

/**
 * A signed-in user who creates or changes a credential, with their role's permissions. The operator CLI acts as
 * no user (undefined): what it makes is bounded by nothing but the plan, as an operator's work is.
 */
export interface CredentialActor {
  userId: string;
  permissions: readonly Permission[];
}

/**
 * An API key saving a webhook endpoint through /api/v1 (scope webhooks.manage): it may subscribe an endpoint only to
 * events its token's scopes could read (`scopes`: those the token holds now, already without any its key's last
 * changer no longer holds), and what it saves answers to that user (`userId`, null: the operator made the key), so
 * the endpoint's events stay bounded by their role at every delivery as the key's scopes are.
 */
export interface ApiKeyActor {
  userId: string | null;
  scopes: readonly Scope[];
  /** The key's public client_id, for the refusal's message. */
  clientId: string;
}

/**
 * Refuses (403 `forbidden`) a key whose scopes the actor could not use themselves: each detail names the scope
 * and one permission it needs that the actor's role lacks.
 */
export function requireGrantableScopes(actor: CredentialActor | undefined, scopes: readonly Scope[]): void {
  if (!actor) return;
  const refused = ungrantableScopes(scopes, actor.permissions);
  if (refused.length === 0) return;
  throw new Forbidden(
    `You cannot give an API key ${refused
      .map(({ item, lacking }) => `the scope ${item} (it needs ${lacking.join(', ')})`)
      .join(', nor ')}: your role does not have ${refused.length === 1 ? 'that' : 'those'}.`,
    refused.flatMap(({ item, lacking }) =>
      lacking.map((permission) => ({
        field: 'body.scopes',
        scope: item,
        permission,
        message: `scope ${item} needs ${permission}, which your role does not have`,
      })),
    ),
  );
}

/**
 * Refuses (403 `forbidden`) an endpoint whose events the actor could not read themselves. An empty list means
 * every event, so it needs every event's permissions.
 */
export function requireGrantableEvents(
  actor: CredentialActor | ApiKeyActor | undefined,
  eventTypes: readonly WebhookEventType[],
): void {
  if (!actor) return;
  if ('scopes' in actor) {
    requireEventsWithinScopes(actor, eventTypes);
    return;
  }
  const refused = ungrantableEvents(eventTypes, actor.permissions);
  if (refused.length === 0) return;
  const lacking = [...new Set(refused.flatMap((event) => event.lacking))];
  throw new Forbidden(
    `You cannot subscribe an endpoint to ${eventTypes.length === 0 ? 'every event (an empty list)' : refused.map((event) => event.item).join(', ')}: ` +
      `${refused.length === 1 ? 'it needs' : 'they need'} ${lacking.join(', ')}, which your role does not have.`,
    refused.flatMap(({ item, lacking: missing }) =>
      missing.map((permission) => ({
        field: 'body.eventTypes',
        eventType: item,
        permission,
        message: `event ${item} needs ${permission}, which your role does not have`,
      })),
    ),
  );
}

/** Refuses (403 `forbidden`) an endpoint receiving an event whose scope the key's token does not hold. */
function requireEventsWithinScopes(actor: ApiKeyActor, eventTypes: readonly WebhookEventType[]): void {
  const refused = subscribedEvents(eventTypes).filter((event) => !actor.scopes.includes(EVENT_SCOPE[event]));
  if (refused.length === 0) return;
  const lacking = [...new Set(refused.map((event) => EVENT_SCOPE[event]))];
  throw new Forbidden(
    `The API key ${actor.clientId} cannot subscribe an endpoint to ${eventTypes.length === 0 ? 'every event (an empty list)' : refused.join(', ')}: ` +
      `${refused.length === 1 ? 'it needs' : 'they need'} the scope ${lacking.join(', ')}, which this token does not hold.`,
    refused.map((event) => ({
      field: 'body.eventTypes',
      eventType: event,
      scope: EVENT_SCOPE[event],
      message: `event ${event} needs the scope ${EVENT_SCOPE[event]}, which this token does not hold`,
    })),
  );
}

/** A credential's last changer as its view shows them. */
export interface ChangerView {
  id: string;
  fullName: string;
  /** `active`, `deactivated` or `deleted` (a user id that no longer exists reads as `deleted`). */
  status: string;
}

export interface LoadedChanger {
  view: ChangerView;
  changer: CredentialChanger;
}

/** The users who last changed these credentials, with their roles' permissions now, by user id. */
export async function loadChangers(
  em: EntityManager,
  userIds: readonly (string | null)[],
): Promise<Map<string, LoadedChanger>> {
  const ids = [...new Set(userIds.filter((id): id is string => id !== null))];
  const loaded = new Map<string, LoadedChanger>();
  if (ids.length === 0) return loaded;
  const users = await em.find(AppUser, { id: { $in: ids } });
  const roles = await em.find(Role, { id: { $in: [...new Set(users.map((user) => user.roleId))] } });
  for (const id of ids) {
    const user = users.find((candidate) => candidate.id === id);
    const role = user ? roles.find((candidate) => candidate.id === user.roleId) : undefined;
    loaded.set(id, {
      view: { id, fullName: user?.fullName ?? '', status: user?.status ?? 'deleted' },
      changer: { active: user?.status === 'active', permissions: role ? permissionsOf(role) : [] },
    });
  }
  return loaded;
}
