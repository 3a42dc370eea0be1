// Where the root layout's "Skip to content" link goes: the page's <main> by default, the Shell's content (past
// its bar and navigation) while a Shell is drawn.
class SkipTarget {
  id = $state('main');
}

export const skipTarget = new SkipTarget();
