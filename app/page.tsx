export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-10">
      <h1 className="text-3xl font-semibold">Easel</h1>
      <p className="mt-4 text-neutral-600">
        Asset hosting with boards, two-phase uploads, version history, board access tokens, HLS video and webhooks. The
        API lives under <code>/v1</code>.
      </p>
    </main>
  );
}
