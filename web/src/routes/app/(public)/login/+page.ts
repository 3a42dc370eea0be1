// /app/login: the sign-in page's other name (the "someone tried to register with your address" email links
// here); it goes on to /app/sign-in, keeping the query.
import { redirect } from '@sveltejs/kit';
import type { PageLoad } from './$types';

export const load: PageLoad = ({ url }) => {
  redirect(307, `/app/sign-in${url.search}`);
};
