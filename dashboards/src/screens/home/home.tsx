import HomePage from '../../features/home/HomePage';

/** The product's home page in the console (route /home, api/routemap.py; the footer's home page link). */
export default function HomeScreen() {
  return <HomePage />;
}
