// The builder page's saving and publishing (docs/templates.md): the version shown (`detail`, the load's, then
// what a save, a publish or a rename answered), what is under way, the problems of the last refused save or
// publish (problems.ts: beside their fields and roles), and what the page says (PageActions). A save checks the
// roles' names and the fields' labels first; saving a published version makes a new draft version (`moved`
// takes the address to it). Publishing saves first when something is unsaved.
import { tick } from 'svelte';
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { appClient } from '$lib/shared/app-client';
import { requestErrorOf } from '$lib/shared/request-error';
import { PageActions } from '$lib/ui/page-actions.svelte';
import { followSessionAnswer } from '../errors.ts';
import type { TemplateBuilder } from './builder.svelte.ts';
import type { TemplateDetail } from './document.ts';
import {
  type BuilderProblems,
  localProblems,
  NO_PROBLEMS,
  type ProblemDetail,
  problemsOf,
} from './problems.ts';

export class TemplateEditing {
  detail: TemplateDetail = $state() as TemplateDetail;
  busy = $state<'' | 'save' | 'publish'>('');
  problems = $state<BuilderProblems>(NO_PROBLEMS);
  readonly actions = new PageActions({ follow: followSessionAnswer });
  /** The version the builder holds: a load of another one starts the builder again. */
  heldId = '';
  readonly #builder: TemplateBuilder;
  readonly #moved: (id: string) => Promise<void>;

  constructor(builder: TemplateBuilder, moved: (id: string) => Promise<void>) {
    this.#builder = builder;
    this.#moved = moved;
  }

  /** A version loaded: the builder starts from it (`start`: with a first role for a new template). */
  open(loaded: TemplateDetail, start: TemplateDetail): void {
    if (loaded.id === this.heldId) return;
    this.heldId = loaded.id;
    this.detail = loaded;
    this.#builder.load(start);
    this.problems = NO_PROBLEMS;
  }

  #refused(error: unknown, details: readonly ProblemDetail[]): void {
    this.problems = problemsOf(details, this.#builder);
    this.actions.error = this.actions.refusal(error);
  }

  /** Saves the document; answers whether it is saved. */
  async save(): Promise<boolean> {
    const t = get(format);
    const builder = this.#builder;
    this.actions.clear();
    builder.commit();
    const local = localProblems(builder, {
      roleNameRequired: t('templates.builder.roleNameRequired'),
      roleNameTaken: t('templates.builder.roleNameTaken'),
      labelRequired: t('templates.builder.labelRequired'),
    });
    if (local.length > 0) {
      this.problems = problemsOf(local, builder);
      this.actions.error = t('templates.builder.fixProblems');
      return false;
    }
    this.busy = 'save';
    try {
      const saved = await appClient.templates.saveDefinition.mutate({
        id: this.detail.id,
        ...builder.definition(),
      });
      builder.markSaved();
      this.problems = NO_PROBLEMS;
      const newVersion = saved.id !== this.detail.id;
      this.detail = saved;
      this.heldId = saved.id;
      if (newVersion) await this.#moved(saved.id);
      this.actions.notice = newVersion
        ? t('templates.builder.savedNewVersion', { values: { version: saved.version } })
        : t('templates.builder.saved');
      return true;
    } catch (error) {
      const failure = requestErrorOf(error);
      this.#refused(error, failure.code === 'invalid_request' ? failure.details : []);
      return false;
    } finally {
      this.busy = '';
    }
  }

  /** Publishes the version (saved first); a refusal lists its reasons and takes the focus to them. */
  async publish(): Promise<void> {
    if (this.#builder.dirty && !(await this.save())) return;
    const t = get(format);
    this.actions.clear();
    this.busy = 'publish';
    try {
      const published = await appClient.templates.publish.mutate({ id: this.detail.id });
      this.detail = published;
      this.problems = NO_PROBLEMS;
      this.actions.notice = t('templates.builder.published', { values: { version: published.version } });
    } catch (error) {
      const failure = requestErrorOf(error);
      if (failure.code !== 'template_not_publishable') {
        this.#refused(error, []);
        return;
      }
      this.#refused(error, failure.details);
      this.actions.error = t('templates.builder.notPublishable', {
        values: { count: failure.details.length },
      });
      await tick();
      document.getElementById('publish-problems')?.focus();
    } finally {
      this.busy = '';
    }
  }

  renamed(renamed: { name: string; updatedAt: string }): void {
    this.detail = { ...this.detail, name: renamed.name, updatedAt: renamed.updatedAt };
    this.actions.notice = get(format)('templates.renamed', { values: { name: renamed.name } });
  }
}
