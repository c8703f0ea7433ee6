import WelcomePage from '../../features/home/WelcomePage';

/** The signed-in user's landing page (route /welcome, api/routemap.py). */
export default function WelcomeScreen() {
  return <WelcomePage />;
}
